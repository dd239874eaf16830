// What Tauri injects into the page (`app.withGlobalTauri`): only what the UI uses. Commands go
// through ui/api.js, whose `invoke` is typed by the generated command map; the raw `invoke`
// here takes any name, so nothing but api.js should call it.

interface TauriChannel<T = unknown> {
  onmessage: (message: T) => void;
}

interface Window {
  __TAURI__: {
    core: {
      invoke(cmd: string, args?: Record<string, unknown>): Promise<unknown>;
      Channel: { new <T = unknown>(): TauriChannel<T> };
    };
    event: {
      listen<T = any>(event: string, handler: (event: { event: string; payload: T }) => void): Promise<() => void>;
    };
    dialog: {
      open(options?: {
        directory?: boolean;
        multiple?: boolean;
        title?: string;
        defaultPath?: string;
        filters?: { name: string; extensions: string[] }[];
      }): Promise<string | string[] | null>;
    };
  };
}
