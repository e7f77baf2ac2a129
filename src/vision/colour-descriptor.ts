/**
 * The colours of the product in a photo, leaving out its background: a soft histogram of the
 * foreground pixels in CIELAB, five grey levels (black to white) and 16 hues in a dark and a light
 * band. Product shots stand on white, grey or other plain backgrounds, so the background is the
 * median colour of the border and the foreground is every pixel far enough from it; when nearly
 * nothing is (a photo that is all background) the whole image counts.
 */
export const GREY_LEVELS = 5;
export const HUES = 16;
export const COLOUR_BINS = GREY_LEVELS + 2 * HUES;

/** Pixels farther than this (ΔE in CIELAB) from the background colour are the product's. */
const FOREGROUND_DISTANCE = 10;
/** Below 1 % of foreground pixels, the image is taken as a whole. */
const MIN_FOREGROUND_SHARE = 0.01;
/** The histogram is taken over a 56×56 grid of block averages: colour needs no more detail. */
const GRID = 56;

const LINEAR = Float32Array.from({ length: 256 }, (_, i) => {
  const c = i / 255;
  return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
});
const labF = (t: number) => (t > 0.008856 ? Math.cbrt(t) : 7.787 * t + 16 / 116);

/** sRGB (0–255, averaged so possibly fractional) to CIELAB, D65. */
function toLab(r: number, g: number, b: number, out: Float32Array, at: number) {
  const lin = (v: number) => {
    const lo = Math.floor(v);
    const hi = Math.min(255, lo + 1);
    return LINEAR[lo] + (LINEAR[hi] - LINEAR[lo]) * (v - lo);
  };
  const R = lin(r);
  const G = lin(g);
  const B = lin(b);
  const fx = labF((0.4124 * R + 0.3576 * G + 0.1805 * B) / 0.95047);
  const fy = labF(0.2126 * R + 0.7152 * G + 0.0722 * B);
  const fz = labF((0.0193 * R + 0.1192 * G + 0.9505 * B) / 1.08883);
  out[at] = 116 * fy - 16;
  out[at + 1] = 500 * (fx - fy);
  out[at + 2] = 200 * (fy - fz);
}

/** Block-averages an RGB image (any size ≥ 1×1) onto a grid of at most GRID×GRID cells, as CIELAB. */
function labGrid(rgb: Uint8Array, width: number, height: number) {
  const gw = Math.min(GRID, width);
  const gh = Math.min(GRID, height);
  const lab = new Float32Array(gw * gh * 3);
  for (let gy = 0; gy < gh; gy++) {
    const y0 = Math.floor((gy * height) / gh);
    const y1 = Math.max(y0 + 1, Math.floor(((gy + 1) * height) / gh));
    for (let gx = 0; gx < gw; gx++) {
      const x0 = Math.floor((gx * width) / gw);
      const x1 = Math.max(x0 + 1, Math.floor(((gx + 1) * width) / gw));
      let r = 0;
      let g = 0;
      let b = 0;
      for (let y = y0; y < y1; y++)
        for (let x = x0; x < x1; x++) {
          const p = (y * width + x) * 3;
          r += rgb[p];
          g += rgb[p + 1];
          b += rgb[p + 2];
        }
      const n = (y1 - y0) * (x1 - x0);
      toLab(r / n, g / n, b / n, lab, (gy * gw + gx) * 3);
    }
  }
  return { lab, gw, gh };
}

/** The border cells' median L, a and b: the backdrop of a product shot. */
function backgroundOf(lab: Float32Array, gw: number, gh: number) {
  const cells: number[] = [];
  for (let x = 0; x < gw; x++) cells.push(x, (gh - 1) * gw + x);
  for (let y = 1; y < gh - 1; y++) cells.push(y * gw, y * gw + gw - 1);
  return [0, 1, 2].map((channel) => {
    const values = cells.map((cell) => lab[cell * 3 + channel]).sort((a, b) => a - b);
    return values[values.length >> 1];
  });
}

/**
 * The foreground's colour histogram as a unit vector of square roots (so that the dot product of two
 * is their Bhattacharyya coefficient), COLOUR_BINS long.
 */
export function foregroundColours(rgb: Uint8Array, width: number, height: number): Float32Array {
  const { lab, gw, gh } = labGrid(rgb, width, height);
  const cells = gw * gh;
  const [bgL, bgA, bgB] = backgroundOf(lab, gw, gh);
  const bins = new Float64Array(COLOUR_BINS);
  const add = (cell: number) => {
    const L = lab[cell * 3];
    const a = lab[cell * 3 + 1];
    const b = lab[cell * 3 + 2];
    // Chroma ramps from grey (below 8) to fully coloured (above 20): no hard edge between the two.
    const chroma = Math.min(1, Math.max(0, (Math.hypot(a, b) - 8) / 12));
    const level = Math.min(GREY_LEVELS - 1, Math.max(0, (L / 100) * (GREY_LEVELS - 1)));
    const l0 = Math.floor(level);
    bins[l0] += (1 - chroma) * (1 - (level - l0));
    if (l0 + 1 < GREY_LEVELS) bins[l0 + 1] += (1 - chroma) * (level - l0);
    if (chroma > 0) {
      const hue = ((Math.atan2(b, a) / (2 * Math.PI) + 1) % 1) * HUES;
      const h0 = Math.floor(hue) % HUES;
      const band = GREY_LEVELS + (L < 50 ? 0 : HUES);
      bins[band + h0] += chroma * (1 - (hue - Math.floor(hue)));
      bins[band + ((h0 + 1) % HUES)] += chroma * (hue - Math.floor(hue));
    }
  };
  let foreground = 0;
  for (let cell = 0; cell < cells; cell++) {
    const d = Math.hypot(lab[cell * 3] - bgL, lab[cell * 3 + 1] - bgA, lab[cell * 3 + 2] - bgB);
    if (d > FOREGROUND_DISTANCE) {
      add(cell);
      foreground++;
    }
  }
  if (foreground < cells * MIN_FOREGROUND_SHARE) for (let cell = 0; cell < cells; cell++) add(cell);
  let norm = 0;
  for (let i = 0; i < COLOUR_BINS; i++) {
    bins[i] = Math.sqrt(bins[i]);
    norm += bins[i] * bins[i];
  }
  norm = Math.sqrt(norm) || 1;
  return Float32Array.from(bins, (x) => x / norm);
}
