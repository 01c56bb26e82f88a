import { render } from 'preact';
import { App } from './app/app';
import { ErrorBoundary } from './components/error-boundary';
import { UpdatePrompt } from './components/update-prompt';
import './styles.css';

render(
  <>
    <ErrorBoundary>
      <App />
    </ErrorBoundary>
    <UpdatePrompt />
  </>,
  document.getElementById('app')!,
);
