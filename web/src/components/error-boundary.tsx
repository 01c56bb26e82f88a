import { Component, type ComponentChildren } from 'preact';

interface State {
  error: Error | null;
}

/** Never a blank screen: a render error shows a sentence and a way back. */
export class ErrorBoundary extends Component<{ children: ComponentChildren }, State> {
  state: State = { error: null };

  static getDerivedStateFromError(error: Error): State {
    return { error };
  }

  componentDidCatch(error: Error) {
    console.warn('Kinetoscope view failed:', error);
  }

  render() {
    if (this.state.error) {
      return (
        <div class="card error-card" role="alert" data-testid="app-error">
          <p>
            Something went wrong while showing this page: <code>{String(this.state.error.message)}</code>
          </p>
          <button type="button" onClick={() => this.setState({ error: null })}>
            Try again
          </button>
        </div>
      );
    }
    return this.props.children;
  }
}
