// Copy buttons for what a developer pastes elsewhere: pubkeys, URLs, macaroons, certificates.
import { el } from './dom.js';

const COPIED_MS = 1500;

/**
 * Over plain http from another machine (a workshop) the browser offers no Clipboard API, so the
 * text is copied from a selected, hidden textarea instead; focus returns to the button.
 */
async function copyText(text) {
  if (window.isSecureContext && navigator.clipboard) return navigator.clipboard.writeText(text);
  const focused = document.activeElement;
  const area = el('textarea', { class: 'offscreen', readonly: true });
  area.value = text;
  document.body.append(area);
  area.select();
  const copied = document.execCommand('copy');
  area.remove();
  focused?.focus();
  if (!copied) throw new Error('the browser refused to copy: select the text and copy it by hand');
}

/** A "Copy" button; `what` names the value for screen readers ("Copy alice's pubkey"). */
export function copyButton(what, text) {
  const button = el('button', { type: 'button', class: 'copy', 'aria-label': `Copy ${what}` }, 'Copy');
  button.addEventListener('click', async () => {
    try {
      await copyText(text());
      button.textContent = 'Copied';
    } catch (error) {
      button.textContent = 'Not copied';
      button.title = error.message;
    }
    setTimeout(() => (button.textContent = 'Copy'), COPIED_MS);
  });
  return button;
}
