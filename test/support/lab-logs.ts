// What a lab's service said last, for the message of a test that failed where its own assertions
// cannot tell why (a node that did not sweep, did not follow the chain).

/**
 * The last `count` lines of `service`'s log in `lab` that match `pattern`, read from the control
 * plane at `controlPlaneUrl` (GET /labs/{lab}/logs/{service}); a log that cannot be read says so in
 * one line instead.
 */
export async function logLines(
  controlPlaneUrl: string,
  lab: string,
  service: string,
  pattern: RegExp,
  count = 40,
): Promise<string[]> {
  try {
    const response = await fetch(`${controlPlaneUrl}/labs/${lab}/logs/${service}?lines=5000`);
    const text = await response.text();
    if (!response.ok) return [`(${service}'s log could not be read: ${response.status} ${text})`];
    return text
      .split('\n')
      .filter((line) => pattern.test(line))
      .slice(-count);
  } catch (error) {
    return [`(${service}'s log could not be read: ${(error as Error).message})`];
  }
}
