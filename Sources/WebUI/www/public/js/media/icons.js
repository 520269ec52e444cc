// Small inline SVG icons for the media controls (fonts do not all carry ⏮ ⏸ ⏭). Each is aria-hidden: the button
// around it carries the label.
const PATHS = {
  play: "M7 4.5v15l12-7.5z",
  pause: "M6 4.5h4v15H6zm8 0h4v15h-4z",
  previous: "M6 5h2.5v14H6zm3.5 7L19 5v14z",
  next: "M15.5 5H18v14h-2.5zM5 5l9.5 7L5 19z",
};

export function icon(name) {
  const svg = document.createElementNS("http://www.w3.org/2000/svg", "svg");
  svg.setAttribute("viewBox", "0 0 24 24");
  svg.setAttribute("width", "18");
  svg.setAttribute("height", "18");
  svg.setAttribute("aria-hidden", "true");
  svg.setAttribute("focusable", "false");
  const path = document.createElementNS("http://www.w3.org/2000/svg", "path");
  path.setAttribute("d", PATHS[name]);
  path.setAttribute("fill", "currentColor");
  svg.append(path);
  return svg;
}
