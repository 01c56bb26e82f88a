import { render } from 'preact';
import { App } from './app';
import { ErrorBoundary } from './components/error-boundary';
import './styles.css';

render(
  <ErrorBoundary>
    <App />
  </ErrorBoundary>,
  document.getElementById('app')!,
);
