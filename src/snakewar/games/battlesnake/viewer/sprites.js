// Head and tail shapes, drawn for Snakewar (none are copied from the official
// board, which fetches its artwork from a media server at run time; these ship
// with the package so the viewer works offline).
//
// Every sprite lives in a 100 x 100 box and points right: the body joins it on
// the left edge (x = 0) over the band y = 10..90, which is exactly as wide as the
// body stroke the renderer draws (0.8 of a cell), so head, body and tail read as
// one continuous snake.  A sprite is a list of path strings, each filled with the
// snake's colour using the even-odd rule: eyes, mouths and freckles are holes
// cut into the silhouette, so the board shows through them in either theme.

/** A circle as a closed sub-path (two arcs), used for eyes and freckles. */
function circle(cx, cy, r) {
  return `M${cx - r} ${cy} a${r} ${r} 0 1 0 ${2 * r} 0 a${r} ${r} 0 1 0 ${-2 * r} 0 Z`;
}

/** An axis-aligned rectangle as a closed sub-path. */
function rect(x, y, w, h) {
  return `M${x} ${y} h${w} v${h} h${-w} Z`;
}

/**
 * An "X" as one 12-sided polygon, so that as a hole it does not refill where
 * its two strokes would overlap under the even-odd rule.
 */
function cross(cx, cy, arm, half) {
  const plus = [
    [-half, -arm], [half, -arm], [half, -half], [arm, -half], [arm, half], [half, half],
    [half, arm], [-half, arm], [-half, half], [-arm, half], [-arm, -half], [-half, -half],
  ];
  const c = Math.SQRT1_2;
  const points = plus.map(([x, y]) => [cx + (x - y) * c, cy + (x + y) * c]);
  const [first, ...rest] = points.map(([x, y]) => `${x.toFixed(2)} ${y.toFixed(2)}`);
  return `M${first} L${rest.join(" L")} Z`;
}

// The common rounded head outline, shared by several heads.
const ROUND_HEAD = "M0 10 H50 C78 10 96 28 96 50 C96 72 78 90 50 90 H0 Z";

const HEADS = {
  default: [`${ROUND_HEAD} ${circle(58, 32, 7)}`],
  beluga: [
    "M0 10 C30 2 70 0 88 18 C100 30 98 62 90 74 C80 88 50 92 0 90 Z " +
      `${circle(52, 36, 7)} M56 66 Q72 78 86 62 Q72 70 56 66 Z`,
  ],
  bendr: [
    "M0 10 H74 V2 H82 V10 H86 Q96 10 96 20 V80 Q96 90 86 90 H0 Z " +
      `${rect(50, 24, 36, 16)} ${rect(56, 60, 6, 14)} ${rect(66, 60, 6, 14)} ${rect(76, 60, 6, 14)}`,
  ],
  dead: [`${ROUND_HEAD} ${cross(58, 34, 10, 3)} ${rect(58, 64, 26, 5)}`],
  evil: [
    `${ROUND_HEAD} M44 24 L76 34 L72 42 L46 34 Z M60 62 Q74 56 88 64 Q74 62 60 66 Z`,
  ],
  fang: [
    "M0 10 H50 C78 10 96 28 96 50 C96 66 88 78 76 84 L72 99 L66 86 L58 88 L54 99 L50 90 H0 Z " +
      `${circle(60, 32, 7)}`,
  ],
  pixel: [`M0 10 H60 V18 H76 V30 H90 V70 H76 V82 H60 V90 H0 Z ${rect(58, 30, 10, 10)}`],
  "sand-worm": [`M0 10 H60 Q96 10 96 50 Q96 90 60 90 H0 Z ${circle(70, 50, 16)} ${circle(40, 28, 5)}`],
  smile: [`${ROUND_HEAD} ${circle(58, 32, 7)} M52 62 Q70 80 88 58 Q70 70 52 62 Z`],
  tongue: [
    `M0 10 H44 C68 10 84 28 84 50 C84 72 68 90 44 90 H0 Z ${circle(50, 32, 7)}`,
    // The forked tongue is its own path: it overlaps the head's outline, and as
    // part of the same even-odd path the overlap would become a hole.
    "M78 47 H92 L100 40 L96 50 L100 60 L92 53 H78 Z",
  ],
};

const TAILS = {
  default: ["M0 10 C40 10 70 30 96 50 C70 70 40 90 0 90 Z"],
  "block-bum": ["M0 10 H86 V90 H0 Z"],
  bolt: ["M0 10 H30 L58 34 L48 40 L98 70 L36 58 L46 52 L30 90 H0 Z"],
  curled: [`M0 10 H50 A40 40 0 1 1 50 90 H0 Z ${circle(52, 50, 22)} ${circle(52, 50, 10)}`],
  "fat-rattle": [
    "M0 10 H14 C24 4 34 4 40 14 C48 6 58 8 62 20 C70 14 80 18 82 30 C96 40 96 60 82 70 " +
      "C80 82 70 86 62 80 C58 92 48 94 40 86 C34 96 24 96 14 90 H0 Z",
  ],
  freckled: [
    "M0 10 H40 C72 10 92 30 92 50 C92 70 72 90 40 90 H0 Z " +
      `${circle(30, 30, 4)} ${circle(52, 62, 5)} ${circle(70, 36, 4)} ${circle(24, 70, 3)}`,
  ],
  pixel: ["M0 10 H30 V22 H56 V34 H80 V66 H56 V78 H30 V90 H0 Z"],
  "round-bum": ["M0 10 H50 A40 40 0 0 1 50 90 H0 Z"],
  skinny: ["M0 10 C30 20 60 44 98 48 V52 C60 56 30 80 0 90 Z"],
};

/** The head names this viewer can draw, `default` first. */
export const HEAD_NAMES = Object.freeze(Object.keys(HEADS));
/** The tail names this viewer can draw, `default` first. */
export const TAIL_NAMES = Object.freeze(Object.keys(TAILS));

function resolve(table, name) {
  // Snakes choose these names themselves; anything we do not know is drawn as
  // `default` rather than leaving a hole in the board.
  const key = typeof name === "string" ? name.trim().toLowerCase() : "";
  return Object.hasOwn(table, key) ? key : "default";
}

/** The drawable head name for `name` (unknown names give `default`). */
export function headName(name) {
  return resolve(HEADS, name);
}

/** The drawable tail name for `name` (unknown names give `default`). */
export function tailName(name) {
  return resolve(TAILS, name);
}

/** The path strings of head `name`, in the 100 x 100 box, pointing right. */
export function headPaths(name) {
  return HEADS[headName(name)];
}

/** The path strings of tail `name`, in the 100 x 100 box, pointing right. */
export function tailPaths(name) {
  return TAILS[tailName(name)];
}
