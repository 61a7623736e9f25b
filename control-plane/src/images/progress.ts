import type Docker from 'dockerode';

export interface ProgressEvent {
  stream?: string;
  status?: string;
  id?: string;
  error?: string;
  errorDetail?: { message?: string };
  aux?: { ID?: string };
}

/** Follows a build or import stream to its end, reporting lines; rejects on an error event. */
export function followBuild(
  docker: Docker,
  stream: NodeJS.ReadableStream,
  onProgress: (line: string) => void,
): Promise<ProgressEvent[]> {
  return new Promise((resolve, reject) => {
    docker.modem.followProgress(
      stream,
      (error: Error | null, events: ProgressEvent[]) => {
        if (error) return reject(error);
        const failed = events.find((event) => event.error !== undefined || event.errorDetail !== undefined);
        if (failed) return reject(new Error(failed.errorDetail?.message ?? failed.error));
        resolve(events);
      },
      (event: ProgressEvent) => {
        const line = (event.stream ?? event.status ?? event.error ?? '').trimEnd();
        if (line) onProgress(line);
      },
    );
  });
}
