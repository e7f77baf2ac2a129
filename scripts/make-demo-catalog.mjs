// Writes the demo catalog `vitrine demo` loads: samples/demo/catalog.csv and one photo per product
// in samples/demo/photos/, drawn here (flat product illustrations rendered by sharp from SVG), so the
// repository ships images it may ship. Deterministic: the same files on every run.
// Run: node scripts/make-demo-catalog.mjs
import fs from 'node:fs';
import path from 'node:path';
import sharp from 'sharp';

const OUT = path.resolve('samples/demo');
const PHOTOS = path.join(OUT, 'photos');

const COLOURS = [
  ['Black', '#1d1d1f'],
  ['White', '#f4f4f0'],
  ['Navy Blue', '#1f2f5c'],
  ['Red', '#c62828'],
  ['Green', '#2e7d32'],
  ['Yellow', '#f2c12e'],
  ['Pink', '#e88fb0'],
  ['Grey', '#8a8d91'],
  ['Brown', '#6d4c32'],
  ['Beige', '#d8c3a0'],
  ['Blue', '#2f6fd6'],
  ['Purple', '#6a3d9a'],
];

// [category, department, usage, price, title noun, svg body drawing with {c} = colour, {d} = darker]
const GARMENTS = [
  [
    'Tshirts',
    'Men',
    'Casual',
    19,
    'Cotton T-Shirt',
    '<path d="M70 44 L96 32 Q112 48 128 32 L154 44 L190 78 L166 100 L154 88 L154 196 L70 196 L70 88 L58 100 L34 78 Z" fill="{c}" stroke="{d}" stroke-width="3"/>',
  ],
  [
    'Shirts',
    'Men',
    'Formal',
    39,
    'Oxford Shirt',
    '<path d="M72 40 L98 30 L112 46 L126 30 L152 40 L182 150 L162 156 L150 92 L150 198 L74 198 L74 92 L62 156 L42 150 Z" fill="{c}" stroke="{d}" stroke-width="3"/><path d="M112 46 L112 198" stroke="{d}" stroke-width="2"/><circle cx="112" cy="80" r="3" fill="{d}"/><circle cx="112" cy="115" r="3" fill="{d}"/><circle cx="112" cy="150" r="3" fill="{d}"/>',
  ],
  [
    'Dresses',
    'Women',
    'Party',
    59,
    'Midi Dress',
    '<path d="M92 30 L100 30 L104 56 L120 56 L124 30 L132 30 L140 84 Q150 140 178 198 L46 198 Q74 140 84 84 Z" fill="{c}" stroke="{d}" stroke-width="3"/><path d="M84 88 L140 88" stroke="{d}" stroke-width="4"/>',
  ],
  [
    'Skirts',
    'Women',
    'Casual',
    35,
    'A-Line Skirt',
    '<path d="M78 58 L146 58 L182 186 L42 186 Z" fill="{c}" stroke="{d}" stroke-width="3"/><rect x="78" y="52" width="68" height="12" fill="{d}"/>',
  ],
  [
    'Jeans',
    'Women',
    'Casual',
    49,
    'Slim Jeans',
    '<path d="M72 30 L152 30 L164 202 L126 202 L112 92 L98 202 L60 202 Z" fill="{c}" stroke="{d}" stroke-width="3"/><path d="M72 44 L152 44 M84 58 Q96 70 104 56 M140 58 Q128 70 120 56" stroke="{d}" stroke-width="2" fill="none"/>',
  ],
  [
    'Trousers',
    'Men',
    'Formal',
    55,
    'Tailored Trousers',
    '<path d="M74 28 L150 28 L158 204 L124 204 L112 84 L100 204 L66 204 Z" fill="{c}" stroke="{d}" stroke-width="3"/><path d="M92 40 L88 204 M132 40 L136 204" stroke="{d}" stroke-width="1.5"/>',
  ],
  [
    'Shorts',
    'Men',
    'Sports',
    25,
    'Running Shorts',
    '<path d="M64 56 L160 56 L172 146 L122 146 L112 98 L102 146 L52 146 Z" fill="{c}" stroke="{d}" stroke-width="3"/><rect x="64" y="50" width="96" height="12" fill="{d}"/>',
  ],
  [
    'Sweatshirts',
    'Unisex',
    'Casual',
    45,
    'Hooded Sweatshirt',
    '<path d="M82 36 Q112 4 142 36 L158 46 L186 150 L164 156 L150 96 L150 196 L74 196 L74 96 L60 156 L38 150 L66 46 Z" fill="{c}" stroke="{d}" stroke-width="3"/><path d="M90 44 Q112 70 134 44" stroke="{d}" stroke-width="3" fill="none"/><rect x="90" y="140" width="44" height="26" rx="6" fill="none" stroke="{d}" stroke-width="2"/>',
  ],
  [
    'Jackets',
    'Women',
    'Casual',
    89,
    'Quilted Jacket',
    '<path d="M74 34 L100 26 L112 40 L124 26 L150 34 L184 158 L162 164 L150 100 L150 198 L74 198 L74 100 L62 164 L40 158 Z" fill="{c}" stroke="{d}" stroke-width="3"/><path d="M112 40 L112 198 M74 80 L150 80 M74 120 L150 120 M74 160 L150 160" stroke="{d}" stroke-width="2"/>',
  ],
  [
    'Casual Shoes',
    'Unisex',
    'Casual',
    69,
    'Canvas Sneakers',
    '<path d="M28 150 Q34 112 76 110 L108 92 Q150 120 190 132 Q200 146 196 160 L28 160 Z" fill="{c}" stroke="{d}" stroke-width="3"/><rect x="24" y="158" width="176" height="14" rx="5" fill="#fafafa" stroke="#999" stroke-width="2"/><path d="M92 104 L118 126 M102 98 L128 120" stroke="#fafafa" stroke-width="3"/>',
  ],
  [
    'Heels',
    'Women',
    'Party',
    79,
    'Pointed Heels',
    '<path d="M30 140 Q84 116 134 146 L176 150 Q186 154 184 162 L70 162 L58 196 L48 196 L46 160 Z" fill="{c}" stroke="{d}" stroke-width="3"/><rect x="168" y="160" width="8" height="36" fill="{d}"/>',
  ],
  [
    'Boots',
    'Women',
    'Casual',
    119,
    'Ankle Boots',
    '<path d="M74 40 L126 40 L128 140 Q176 144 186 168 L186 186 L72 186 Z" fill="{c}" stroke="{d}" stroke-width="3"/><rect x="70" y="182" width="118" height="12" fill="{d}"/>',
  ],
  [
    'Handbags',
    'Women',
    'Casual',
    95,
    'Leather Handbag',
    '<path d="M80 92 Q80 40 112 40 Q144 40 144 92" stroke="{d}" stroke-width="8" fill="none"/><rect x="44" y="88" width="136" height="104" rx="14" fill="{c}" stroke="{d}" stroke-width="3"/><rect x="100" y="110" width="24" height="12" rx="3" fill="{d}"/>',
  ],
  [
    'Backpacks',
    'Unisex',
    'Casual',
    65,
    'Everyday Backpack',
    '<rect x="58" y="40" width="108" height="156" rx="30" fill="{c}" stroke="{d}" stroke-width="3"/><rect x="76" y="120" width="72" height="56" rx="10" fill="none" stroke="{d}" stroke-width="3"/><path d="M92 40 Q112 14 132 40" stroke="{d}" stroke-width="6" fill="none"/>',
  ],
  [
    'Caps',
    'Unisex',
    'Sports',
    22,
    'Baseball Cap',
    '<path d="M52 132 Q52 64 112 64 Q172 64 172 132 Z" fill="{c}" stroke="{d}" stroke-width="3"/><path d="M150 128 Q196 126 204 146 L150 144 Z" fill="{d}"/><circle cx="112" cy="64" r="6" fill="{d}"/>',
  ],
  [
    'Sunglasses',
    'Unisex',
    'Casual',
    45,
    'Round Sunglasses',
    '<circle cx="72" cy="116" r="34" fill="#2b2b2b" stroke="{c}" stroke-width="9"/><circle cx="152" cy="116" r="34" fill="#2b2b2b" stroke="{c}" stroke-width="9"/><path d="M106 110 Q112 100 118 110" stroke="{c}" stroke-width="7" fill="none"/><path d="M38 108 L14 98 M186 108 L210 98" stroke="{c}" stroke-width="7"/>',
  ],
  [
    'Watches',
    'Men',
    'Formal',
    149,
    'Classic Watch',
    '<rect x="92" y="20" width="40" height="184" rx="8" fill="{c}" stroke="{d}" stroke-width="3"/><circle cx="112" cy="112" r="46" fill="#f2f2f2" stroke="{d}" stroke-width="8"/><path d="M112 112 L112 80 M112 112 L134 120" stroke="#222" stroke-width="4"/>',
  ],
  [
    'Scarves',
    'Women',
    'Casual',
    29,
    'Wool Scarf',
    '<path d="M60 30 Q112 60 164 30 L164 70 Q112 100 60 70 Z" fill="{c}" stroke="{d}" stroke-width="3"/><path d="M120 80 L150 196 L120 196 L98 86 Z" fill="{c}" stroke="{d}" stroke-width="3"/><path d="M122 196 L122 208 M132 196 L132 208 M142 196 L142 208" stroke="{d}" stroke-width="3"/>',
  ],
];

function darker(hex) {
  const n = parseInt(hex.slice(1), 16);
  const f = (v) =>
    Math.round(v * 0.55)
      .toString(16)
      .padStart(2, '0');
  return `#${f(n >> 16)}${f((n >> 8) & 255)}${f(n & 255)}`;
}

fs.rmSync(PHOTOS, { recursive: true, force: true });
fs.mkdirSync(PHOTOS, { recursive: true });
const header = [
  'product_code',
  'Product Name',
  'Department',
  'Category',
  'Colour',
  'Usage',
  'Season',
  'Brand',
  'Selling Price',
  'Currency',
];
const rows = [header.join(',')];
const seasons = ['Spring', 'Summer', 'Fall', 'Winter'];
let index = 0;
for (const [category, department, usage, price, noun, drawing] of GARMENTS) {
  for (const [colour, hex] of COLOURS) {
    index++;
    const code = `DEMO-${String(index).padStart(3, '0')}`;
    // A little turn and shift per product, as no two product shots are framed alike.
    const angle = ((index * 37) % 11) - 5;
    const dx = ((index * 13) % 9) - 4;
    const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="224" height="224" viewBox="0 0 224 224"><rect width="224" height="224" fill="#ffffff"/><g transform="translate(${dx} 0) rotate(${angle} 112 112)">${drawing.replaceAll('{c}', hex).replaceAll('{d}', darker(hex))}</g></svg>`;
    await sharp(Buffer.from(svg))
      .jpeg({ quality: 80, mozjpeg: true })
      .toFile(path.join(PHOTOS, `${code}.jpg`));
    const title = `${department === 'Unisex' ? '' : `${department} `}${colour} ${noun}`;
    const cents = (price + (index % 5) * 2 - 0.01).toFixed(2);
    rows.push(
      [code, title, department, category, colour, usage, seasons[index % 4], 'Vitrine Basics', cents, 'EUR'].join(','),
    );
  }
}
fs.writeFileSync(path.join(OUT, 'catalog.csv'), `${rows.join('\n')}\n`);
console.log(`${index} products, photos in ${PHOTOS}`);
