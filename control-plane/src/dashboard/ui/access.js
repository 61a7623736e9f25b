// Read-only mode: a control plane that listens beyond this machine refuses actions and secrets
// without its token (401). The page then hides them and offers a field for the token.
import { call, labPath } from './api.js';
import { byId } from './dom.js';
import { saveToken, storedToken } from './token.js';


/**
 * Whether the page may act: asks for a secret (a service's last log line). Only a 401 means
 * read-only; any other failure is for the part that failed to say.
 */
export async function probeAccess(lab, serviceName) {
  try {
    await call('GET', labPath(lab, `/logs/${encodeURIComponent(serviceName)}?lines=1`));
    return { readOnly: false };
  } catch (error) {
    if (error.status !== 401) return { readOnly: false };
    return { readOnly: true, message: storedToken() ? `The token was refused: ${error.message}` : error.message };
  }
}

/** The read-only banner and its token form; `onToken()` runs after a token is entered. */
export function createAccessBanner(onToken) {
  byId('token-form').addEventListener('submit', (event) => {
    event.preventDefault();
    const token = byId('token').value.trim();
    byId('token').value = '';
    if (token) saveToken(token);
    onToken();
  });
  return {
    show(access) {
      byId('access').hidden = !access.readOnly;
      byId('access-message').textContent = access.message ?? '';
      byId('action-forms').hidden = access.readOnly;
      byId('actions-locked').hidden = !access.readOnly;
    },
  };
}
