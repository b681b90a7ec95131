// What the Halite viewer shows of the map and in which colours, apart from the drawing:
// the camera (zoom and pan, in map cells) and the palettes (players' colours and the
// halite heat map).  No DOM here: the viewer (halite.js) draws with them, and Node
// tests them (tests/games/halite3/viewer/js).

export const MIN_ZOOM = 1;
export const MAX_ZOOM = 8;

/**
 * Which part of a `width` x `height` map is shown: the map point at the view's centre
 * (`cx`, `cy`, in cells) and how many times larger than the whole map it is drawn.  At
 * zoom 1 the whole map is shown; the view never leaves the map.
 */
export class Camera {
  constructor(width, height) {
    this.width = width;
    this.height = height;
    this.reset();
  }

  /** Back to the whole map. */
  reset() {
    this.zoom = MIN_ZOOM;
    this.cx = this.width / 2;
    this.cy = this.height / 2;
  }

  /** Whether the whole map is shown, as after reset(). */
  get isReset() {
    return this.zoom === MIN_ZOOM && this.cx === this.width / 2 && this.cy === this.height / 2;
  }

  /** Keep the view inside the map (at zoom 1: centred). */
  clamp() {
    this.zoom = Math.min(MAX_ZOOM, Math.max(MIN_ZOOM, this.zoom));
    const halfW = this.width / (2 * this.zoom);
    const halfH = this.height / (2 * this.zoom);
    this.cx = Math.min(this.width - halfW, Math.max(halfW, this.cx));
    this.cy = Math.min(this.height - halfH, Math.max(halfH, this.cy));
  }

  /**
   * Zoom by `factor` keeping the map point at view fractions (`u`, `v`) (0..1 across
   * the view; 0.5, 0.5 is its centre) where it is on the screen.
   */
  zoomAt(factor, u = 0.5, v = 0.5) {
    const before = this.toMap(u, v);
    this.zoom = Math.min(MAX_ZOOM, Math.max(MIN_ZOOM, this.zoom * factor));
    // The point under the cursor stays under it: solve toMap(u, v) === before.
    this.cx = before.x - (u - 0.5) * (this.width / this.zoom);
    this.cy = before.y - (v - 0.5) * (this.height / this.zoom);
    this.clamp();
  }

  /** Move the view by a fraction of it (`du`, `dv`: 1 is the view's whole width/height). */
  panBy(du, dv) {
    this.cx += du * (this.width / this.zoom);
    this.cy += dv * (this.height / this.zoom);
    this.clamp();
  }

  /** The map point (in cells, fractional) at view fractions (`u`, `v`). */
  toMap(u, v) {
    return {
      x: this.cx + (u - 0.5) * (this.width / this.zoom),
      y: this.cy + (v - 0.5) * (this.height / this.zoom),
    };
  }

  /**
   * The drawing transform for a canvas of `cell` pixels a map cell at zoom 1:
   * `[scale, dx, dy]`, a map pixel (x, y) being drawn at (x * scale + dx, y * scale + dy).
   */
  transform(cell) {
    const scale = this.zoom;
    return [
      scale,
      (this.width / 2 - this.cx * scale) * cell,
      (this.height / 2 - this.cy * scale) * cell,
    ];
  }

  /** The cells at least partly in view: `{x0, y0, x1, y1}` (x1, y1 excluded). */
  visible() {
    const a = this.toMap(0, 0);
    const b = this.toMap(1, 1);
    return {
      x0: Math.max(0, Math.floor(a.x)),
      y0: Math.max(0, Math.floor(a.y)),
      x1: Math.min(this.width, Math.ceil(b.x)),
      y1: Math.min(this.height, Math.ceil(b.y)),
    };
  }
}

// -- palettes ---------------------------------------------------------------------------

/**
 * The palettes, by name: `players` (a colour per player, in seat order) and `heat`
 * (stops of the halite heat map from an empty cell, 0, to the richest, 1).
 *
 * "okabe-ito" is for colour-blind eyes: the players are the Okabe–Ito colours (told
 * apart with any of the common colour vision deficiencies) and the heat map runs from
 * dark blue to light yellow through greys, changing in lightness throughout (as
 * cividis does), so it reads the same without hue.
 */
export const PALETTES = Object.freeze({
  default: {
    title: "Default",
    players: ["#f2a900", "#2f9e44", "#e03131", "#7048e8", "#1c7ed6", "#e8590c"],
    heat: [
      [0, [14, 22, 38]],
      [0.35, [22, 86, 110]],
      [0.7, [70, 170, 140]],
      [1, [250, 214, 92]],
    ],
  },
  "okabe-ito": {
    title: "Colour-blind safe (Okabe–Ito)",
    players: ["#e69f00", "#56b4e9", "#009e73", "#f0e442", "#0072b2", "#d55e00", "#cc79a7", "#ffffff"],
    heat: [
      [0, [0, 32, 77]],
      [0.25, [64, 77, 107]],
      [0.5, [124, 123, 120]],
      [0.75, [188, 175, 111]],
      [1, [253, 231, 55]],
    ],
  },
});

/** The palette called `name` (the default one for an unknown name). */
export function palette(name) {
  return PALETTES[name] ?? PALETTES.default;
}

/** Whether `name` is a palette's name. */
export function isPalette(name) {
  return Object.hasOwn(PALETTES, String(name));
}

/** Player `seat`'s colour in palette `name`. */
export function playerColor(name, seat) {
  const colors = palette(name).players;
  return colors[seat % colors.length];
}

/** The 256 heat-map colours of palette `name`, as r, g, b bytes. */
export function heatColors(name) {
  const stops = palette(name).heat;
  const out = new Uint8ClampedArray(256 * 3);
  for (let i = 0; i < 256; i += 1) {
    const v = i / 255;
    let k = 0;
    while (k < stops.length - 2 && v > stops[k + 1][0]) {
      k += 1;
    }
    const [a, ca] = stops[k];
    const [b, cb] = stops[k + 1];
    const f = (v - a) / (b - a);
    for (let j = 0; j < 3; j += 1) {
      out[i * 3 + j] = ca[j] + (cb[j] - ca[j]) * f;
    }
  }
  return out;
}
