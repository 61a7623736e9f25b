export type LogLevel = 'debug' | 'info' | 'warn' | 'error' | 'silent';

export type Logger = Record<Exclude<LogLevel, 'silent'>, (message: string, fields?: Record<string, unknown>) => void>;

const rank: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40, silent: 100 };

/** Structured logs: one JSON object a line on stdout. */
export function createLogger(level: LogLevel, name = 'indexer'): Logger {
  const write =
    (at: Exclude<LogLevel, 'silent'>) =>
    (message: string, fields: Record<string, unknown> = {}) => {
      if (rank[at] < rank[level]) return;
      process.stdout.write(
        `${JSON.stringify({ time: new Date().toISOString(), level: at, name, msg: message, ...fields })}\n`,
      );
    };
  return { debug: write('debug'), info: write('info'), warn: write('warn'), error: write('error') };
}
