// Which lab the page shows: `?lab=NAME`, else the only lab that is up. With several labs, a
// picker; with none, a note (and the page reloads when one starts).
import { call } from './api.js';
import { byId, el, showNotice } from './dom.js';

function showPicker(labs, current) {
  byId('lab-picker').hidden = labs.length < 2;
  byId('lab-picker').replaceChildren(
    ...labs.map((lab) =>
      el(
        'a',
        { href: `?lab=${encodeURIComponent(lab.name)}`, 'aria-current': lab.name === current ? 'page' : undefined },
        `${lab.name} (${lab.status})`,
      ),
    ),
  );
}

function waitForALab() {
  const source = new EventSource('/events');
  for (const type of ['lab', 'phase', 'service']) source.addEventListener(type, () => location.reload());
}

/** The lab to show, or undefined after telling the user why there is none. */
export async function chooseLab() {
  const { labs } = await call('GET', '/labs');
  const wanted = new URLSearchParams(location.search).get('lab') ?? (labs.length === 1 ? labs[0].name : undefined);
  showPicker(labs, wanted);
  if (wanted) return wanted;
  byId('lab-status').textContent = labs.length === 0 ? 'no lab' : 'choose a lab';
  showNotice(
    labs.length === 0
      ? 'No lab is up. Run `reglab up`: this page follows when it starts.'
      : 'Several labs are up: choose one above.',
  );
  if (labs.length === 0) waitForALab();
  return undefined;
}
