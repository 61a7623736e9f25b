// Read-only mode: a control plane that listens beyond this machine refuses actions and secrets
// without its token (401). The page then hides them and offers a field for the token.
import { call } from './api.js';
import { byId } from './dom.js';
import { saveToken, storedToken } from './token.js';

/** Whether the page may act on `lab`: the control plane says if it asks for a token and if this one is good (its own or the lab's). */
export async function probeAccess(lab) {
  const { tokenRequired, authorized } = await call('GET', `/access?lab=${encodeURIComponent(lab)}`);
  if (authorized) return { readOnly: false };
  return {
    readOnly: true,
    message: storedToken()
      ? 'The token was refused: ask the person running the lab for the one `reglab up` printed.'
      : 'This control plane is open to the network: without its token the page is read-only and credentials stay hidden. Enter the token `reglab up` printed.',
    tokenRequired,
  };
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
