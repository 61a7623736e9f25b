// The access token of a control plane that listens beyond this machine (`reglab up --listen`).
// It is kept for this browser tab only (sessionStorage), never in the address bar a room can see.

const KEY = 'reglab-token';

/**
 * Takes a `#token=…` (the URL `reglab up` prints) into this tab's storage and off the address bar; says whether there
 * was one.
 */
export function takeTokenFromUrl() {
  const token = new URLSearchParams(location.hash.slice(1)).get('token');
  if (!token) return false;
  sessionStorage.setItem(KEY, token);
  history.replaceState(null, '', location.pathname + location.search);
  return true;
}

export const storedToken = () => sessionStorage.getItem(KEY) ?? undefined;
export const saveToken = (token) => sessionStorage.setItem(KEY, token);
export const forgetToken = () => sessionStorage.removeItem(KEY);
