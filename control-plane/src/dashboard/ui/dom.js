// Building and updating the page's elements.

const SVG_NS = 'http://www.w3.org/2000/svg';

export const byId = (id) => document.getElementById(id);

/** The page's note above everything (no lab, the control plane unreachable); undefined hides it. */
export function showNotice(text) {
  byId('notice').hidden = !text;
  byId('notice').textContent = text ?? '';
}

/**
 * From GET /health: a control plane started before reglab was built again runs the build before; says how to run the
 * new one.
 */
export function showBuildNotice(health) {
  const notice = byId('build-notice');
  notice.dataset.built = health?.built ?? '';
  notice.hidden = !health?.installedBuild;
  notice.textContent = health?.installedBuild
    ? `This control plane runs reglab as built at ${new Date(health.built).toLocaleString()}, but reglab was built again at ${new Date(health.installedBuild).toLocaleString()}: run \`reglab down\`, then \`reglab up\`, to run the new build.`
    : '';
}

function fill(element, attributes, children) {
  for (const [name, value] of Object.entries(attributes)) {
    if (value === undefined || value === false) continue;
    if (name === 'dataset') Object.assign(element.dataset, value);
    else element.setAttribute(name, value === true ? '' : String(value));
  }
  element.append(...children.flat().filter((child) => child !== undefined && child !== null && child !== false));
  return element;
}

/** An HTML element: attributes (`dataset` as an object, true as a bare attribute) and children (text or elements). */
export const el = (tag, attributes = {}, ...children) => fill(document.createElement(tag), attributes, children);

/** The same for SVG elements. */
export const svgEl = (tag, attributes = {}, ...children) =>
  fill(document.createElementNS(SVG_NS, tag), attributes, children);

/**
 * Makes `container`'s children match `items`, keeping the element of each key that is still there
 * (so a focused button or an opened <details> survives an update): `create(item)` makes a new
 * element, `update(element, item)` brings one up to date.
 */
export function syncChildren(container, items, keyOf, create, update) {
  const existing = new Map([...container.children].map((child) => [child.dataset.key, child]));
  const wanted = items.map((item) => {
    const key = String(keyOf(item));
    const element = existing.get(key) ?? create(item);
    element.dataset.key = key;
    update(element, item);
    return element;
  });
  const kept = new Set(wanted);
  for (const element of existing.values()) if (!kept.has(element)) element.remove();
  wanted.forEach((element, index) => {
    if (container.children[index] !== element) container.insertBefore(element, container.children[index] ?? null);
  });
}

/** Replaces a <select>'s options, keeping the chosen value if it is still offered. */
export function setOptions(select, options, placeholder) {
  const chosen = select.value;
  const same =
    select.options.length === options.length &&
    options.every(
      (option, index) =>
        select.options[index].value === option.value && select.options[index].textContent === option.label,
    );
  if (same) return;
  select.replaceChildren(...options.map((option) => el('option', { value: option.value }, option.label)));
  if (options.length === 0 && placeholder) select.append(el('option', { value: '' }, placeholder));
  if (options.some((option) => option.value === chosen)) select.value = chosen;
}
