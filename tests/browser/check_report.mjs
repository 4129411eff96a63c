// Opens a cargo-golden report.html in headless Chromium (playwright-core
// driving the system's Chromium: no browser download), checks what
// rendered, runs the axe-core accessibility rules, and writes screenshots.
//
//   node check_report.mjs REPORT_HTML OUT_DIR EXPECT_JSON
//
// EXPECT_JSON: {"failing": {"name": "...", "reason": "..."}, "cases": N,
//               "history_runs": N}
// Prints one JSON object (what was seen) on stdout; exits 1 with the
// problems on stderr when a check fails.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import path from 'node:path';

const require = createRequire(import.meta.url);
const toolDir = process.env.CARGO_GOLDEN_BROWSER_TOOLS;
const { chromium } = require(path.join(toolDir, 'playwright-core'));
const axeSource = readFileSync(path.join(toolDir, 'axe-core', 'axe.min.js'), 'utf8');

const [report, outDir, expectJson] = process.argv.slice(2);
const expect = JSON.parse(expectJson);
const url = pathToFileURL(path.resolve(report)).href;
const problems = [];
const seen = {};

const browser = await chromium.launch({
  executablePath: process.env.CARGO_GOLDEN_CHROMIUM || '/usr/bin/chromium',
  args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
    '--disable-background-networking', '--disable-component-update', '--disable-sync'],
});

// What the page shows of its cases, its charts and its layout.
function inspect() {
  const rows = [...document.querySelectorAll('tr.case')].map((tr) => {
    tr.scrollIntoView({ block: 'center' });
    const r = tr.getBoundingClientRect();
    const hit = document.elementFromPoint(r.left + Math.min(r.width / 2, 40), r.top + r.height / 2);
    return {
      result: tr.dataset.result,
      name: tr.querySelector('.name')?.textContent ?? '',
      why: tr.querySelector('td[data-label="Why"]')?.innerText ?? '',
      strip: tr.querySelector('.strip')?.textContent ?? '',
      visible: r.width > 0 && r.height > 0 && getComputedStyle(tr).visibility === 'visible'
        && hit !== null && tr.contains(hit),
    };
  });
  window.scrollTo(0, 0);
  const charts = [...document.querySelectorAll('svg.chart')].map((svg) => {
    const r = svg.getBoundingClientRect();
    return { title: svg.querySelector('title')?.textContent ?? '', width: r.width, height: r.height,
      bars: svg.querySelectorAll('rect').length, lines: svg.querySelectorAll('polyline').length };
  });
  const details = [...document.querySelectorAll('details')].map((d) => ({
    id: d.id, open: d.open, text: d.innerText }));
  const header = document.querySelector('header');
  return {
    status: document.querySelector('[data-final-status]')?.dataset.finalStatus,
    rows, charts, details,
    styled: header ? getComputedStyle(header).borderBottomWidth : null,
    scrollWidth: document.documentElement.scrollWidth,
    innerWidth: window.innerWidth,
    text: document.body.innerText,
  };
}

async function look(label, viewport, mobile) {
  const context = await browser.newContext({ viewport, isMobile: mobile, deviceScaleFactor: mobile ? 2 : 1 });
  const page = await context.newPage();
  const errors = [];
  const requests = [];
  page.on('console', (m) => { if (m.type() === 'error' || m.type() === 'warning') errors.push(`${m.type()}: ${m.text()}`); });
  page.on('pageerror', (e) => errors.push(`page error: ${e.message}`));
  page.on('request', (r) => { if (r.url() !== url) requests.push(r.url()); });
  await page.goto(url, { waitUntil: 'load' });
  const got = await page.evaluate(inspect);
  const shot = path.join(outDir, `report-${label}.png`);
  await page.screenshot({ path: shot, fullPage: true });
  await context.close();
  if (errors.length) problems.push(`${label}: console: ${errors.join(' | ')}`);
  if (requests.length) problems.push(`${label}: the page fetched ${requests.join(', ')}`);
  if (got.styled !== '4px') problems.push(`${label}: the style sheet was not applied (header border ${got.styled})`);
  if (got.scrollWidth > got.innerWidth) problems.push(`${label}: wider than the window (${got.scrollWidth} > ${got.innerWidth} px)`);
  if (got.rows.length !== expect.cases) problems.push(`${label}: ${got.rows.length} case rows, expected ${expect.cases}`);
  const failing = got.rows.find((r) => r.name === expect.failing.name);
  if (!failing) problems.push(`${label}: no row for ${expect.failing.name}`);
  else {
    if (failing.result !== 'FAILED') problems.push(`${label}: ${failing.name} shows ${failing.result}`);
    if (!failing.why.includes(expect.failing.reason)) problems.push(`${label}: its reason reads ${JSON.stringify(failing.why)}`);
    if (!failing.visible) problems.push(`${label}: the failing row is not visible`);
  }
  const bars = got.charts.find((c) => c.bars > 0);
  if (!bars || bars.width < 200 || bars.height < 20) problems.push(`${label}: no duration chart rendered (${JSON.stringify(got.charts)})`);
  if (expect.history_runs > 1 && !got.charts.some((c) => c.lines > 0 && c.width >= 200)) problems.push(`${label}: no trend line rendered`);
  seen[label] = { screenshot: shot, ...got, text: undefined, console: errors, requests };
  return got;
}

async function accessibility(viewport) {
  // axe is injected as a script, which the page's own policy forbids.
  const context = await browser.newContext({ viewport, bypassCSP: true });
  const page = await context.newPage();
  await page.goto(url, { waitUntil: 'load' });
  await page.addScriptTag({ content: axeSource });
  const result = await page.evaluate(() => window.axe.run(document, {
    runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice'] },
  }));
  await context.close();
  return result;
}

try {
  const wide = await look('1100', { width: 1100, height: 900 }, false);
  await look('phone', { width: 390, height: 844 }, true);
  seen.text = wide.text;
  for (const [label, viewport] of [['1100', { width: 1100, height: 900 }], ['phone', { width: 390, height: 844 }]]) {
    const axe = await accessibility(viewport);
    seen[`axe_${label}`] = { passes: axe.passes.length, violations: axe.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.map((n) => n.target.join(' ')).slice(0, 5) })) };
    for (const v of axe.violations) problems.push(`${label}: accessibility: ${v.id} (${v.impact}): ${v.help} at ${v.nodes.map((n) => n.target.join(' ')).slice(0, 3).join('; ')}`);
  }
} finally {
  await browser.close();
}
process.stdout.write(JSON.stringify(seen) + '\n');
if (problems.length) {
  process.stderr.write(problems.map((p) => `- ${p}`).join('\n') + '\n');
  process.exit(1);
}
