// The contract the code cites lives in the repository: every "SPEC section N" (or "SPEC §N") in
// src/, test/, the README, CONTRIBUTING.md and docs/ names a section heading of
// docs/design/contract.md, which keeps the original contract's twelve numbers and titles; and every
// relative link in docs/ reaches a file that exists, and the heading or explicit anchor it names.
// Links are what a reader follows, so a renamed file or heading fails here rather than in someone's
// browser.
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const contractPath = join(root, "docs/design/contract.md");

/** The sections of the contract the project was built from, by number: the doc keeps both. */
const contractSections = [
  "Words",
  "Stages",
  "What observation reads",
  "Per-resource rules",
  "Budget",
  "Verdict messages",
  "NATS interface",
  "Metrics",
  "Command line",
  "Durability",
  "Trust and limits",
  "Where observation runs",
] as const;

function filesUnder(dir: string, suffix: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true, encoding: "utf8" })
    .filter((name) => name.endsWith(suffix) && !name.split(sep).includes("node_modules"))
    .map((name) => join(dir, name))
    .sort();
}

const shown = (path: string) => relative(root, path).split(sep).join("/");

// "SPEC section 7", "SPEC sections 2, 3, 5, 6", "SPEC §7", "SPEC's section 4"; "SPEC's order" and
// "SPEC: 1 MiB" name no section.
const specReference = /\bSPEC(?:'s)?\s*(?:sections?\s*|§\s*)(\d+(?:\s*(?:,|and|&|§)\s*\d+)*)/g;

/** The section numbers a text cites, each with the line it is on. */
function specReferences(text: string): { section: number; line: number; cited: string }[] {
  const found: { section: number; line: number; cited: string }[] = [];
  for (const match of text.matchAll(specReference)) {
    const line = text.slice(0, match.index).split("\n").length;
    for (const number of match[1]!.match(/\d+/g) ?? []) found.push({ section: Number(number), line, cited: match[0] });
  }
  return found;
}

/** Fenced code blocks blanked (line count kept), so neither headings nor links are read inside them. */
function withoutFences(markdown: string): string {
  let fence: string | undefined;
  return markdown
    .split("\n")
    .map((line) => {
      const marker = /^\s{0,3}(`{3,}|~{3,})/.exec(line)?.[1];
      if (fence === undefined && marker !== undefined) {
        fence = marker;
        return "";
      }
      if (fence !== undefined) {
        if (marker !== undefined && marker[0] === fence[0] && marker.length >= fence.length && line.trim() === marker) fence = undefined;
        return "";
      }
      return line;
    })
    .join("\n");
}

/** Code spans replaced by their text without backticks, so `[x](y)` in code is not a link. */
const withoutCodeSpans = (line: string) => line.replace(/(`+)([\s\S]*?[^`])\1(?!`)/g, (_, _ticks, code: string) => code.replace(/[[\]()]/g, " "));

/** A heading's anchor as GitHub makes it (github-slugger): lower case, punctuation dropped, spaces as '-'. */
function githubSlug(heading: string): string {
  const text = heading
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, "$1")
    .replace(/<[^>]+>/g, "")
    .replace(/`/g, "")
    .trim()
    .toLowerCase();
  return text.replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, "").replace(/ /g, "-");
}

/** Every anchor a markdown file offers: its headings' slugs (duplicates numbered) and explicit ids. */
function anchorsOf(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const counts = new Map<string, number>();
  const add = (heading: string) => {
    const slug = githubSlug(heading);
    const seen = counts.get(slug) ?? 0;
    counts.set(slug, seen + 1);
    anchors.add(seen === 0 ? slug : `${slug}-${seen}`);
  };
  const lines = withoutFences(markdown).split("\n");
  lines.forEach((line, index) => {
    const atx = /^\s{0,3}#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (atx) add(atx[1]!);
    else if (line.trim() !== "" && /^\s{0,3}(=+|-+)\s*$/.test(lines[index + 1] ?? "") && !/^\s{0,3}[-*+>|]/.test(line)) add(line);
    for (const match of line.matchAll(/<a\s[^>]*\b(?:id|name)\s*=\s*"([^"]+)"/g)) anchors.add(match[1]!);
  });
  return anchors;
}

type Link = { readonly line: number; readonly target: string };

/** The link destinations of a markdown text: inline links and images, and reference definitions. */
function linksOf(markdown: string): Link[] {
  const links: Link[] = [];
  withoutFences(markdown)
    .split("\n")
    .forEach((raw, index) => {
      const line = withoutCodeSpans(raw);
      for (const match of line.matchAll(/\]\(\s*(<[^>]*>|[^)\s]+)(?:\s+"[^"]*")?\s*\)/g)) links.push({ line: index + 1, target: match[1]! });
      const definition = /^\s{0,3}\[[^\]]+\]:\s*(<[^>]*>|\S+)/.exec(line);
      if (definition) links.push({ line: index + 1, target: definition[1]! });
    });
  return links.map(({ line, target }) => ({ line, target: target.replace(/^<(.*)>$/, "$1") }));
}

const markdownCache = new Map<string, Set<string>>();
function anchorsOfFile(path: string): Set<string> {
  let anchors = markdownCache.get(path);
  if (anchors === undefined) {
    anchors = anchorsOf(readFileSync(path, "utf8"));
    markdownCache.set(path, anchors);
  }
  return anchors;
}

/** Why a link from `from` does not resolve, or undefined when it does (or is not a relative link). */
function brokenLink(from: string, target: string): string | undefined {
  if (/^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith("//")) return undefined;
  const hash = target.indexOf("#");
  const pathPart = decodeURIComponent(hash === -1 ? target : target.slice(0, hash));
  const anchor = hash === -1 ? undefined : decodeURIComponent(target.slice(hash + 1));
  const path = pathPart === "" ? from : pathPart.startsWith("/") ? join(root, pathPart) : resolve(dirname(from), pathPart);
  if (!existsSync(path)) return `${shown(path)} does not exist`;
  if (anchor === undefined || anchor === "") return undefined;
  if (statSync(path).isDirectory() || !path.endsWith(".md")) return `#${anchor}: ${shown(path)} is not a markdown file`;
  return anchorsOfFile(path).has(anchor) ? undefined : `${shown(path)} has no heading or anchor #${anchor}`;
}

describe("specReferences", () => {
  it("reads single, listed and § references, and nothing else", () => {
    const text = ["// Stages (SPEC section 2): x", "// SPEC sections 2, 3, 5, 6", "x SPEC §7 and SPEC's order", "SPEC section 5, in one place", "SPEC: 1 MiB"].join("\n");
    expect(specReferences(text).map(({ section, line }) => [section, line])).toEqual([
      [2, 1],
      [2, 2],
      [3, 2],
      [5, 2],
      [6, 2],
      [7, 3],
      [5, 4],
    ]);
  });
});

describe("githubSlug", () => {
  it.each([
    ["7. NATS interface", "7-nats-interface"],
    ["12. Where observation runs", "12-where-observation-runs"],
    ["4. Per-resource rules", "4-per-resource-rules"],
    ["What `list` shows, and why", "what-list-shows-and-why"],
  ])("%s -> %s", (heading, slug) => {
    expect(githubSlug(heading)).toBe(slug);
  });
});

describe("docs/design/contract.md", () => {
  const contract = readFileSync(contractPath, "utf8");
  const headings = new Map(
    [...withoutFences(contract).matchAll(/^## (\d+)\. (.+)$/gm)].map((match) => [Number(match[1]), match[2]!.trim()] as const),
  );

  it("keeps the contract's twelve sections, numbered and titled as the code cites them", () => {
    expect([...headings]).toEqual(contractSections.map((title, index) => [index + 1, title]));
  });

  it("offers each section's anchor, as links to docs/design/contract.md#7-nats-interface expect", () => {
    const anchors = anchorsOf(contract);
    for (const [number, title] of headings) expect(anchors).toContain(githubSlug(`${number}. ${title}`));
  });

  it("has a section for every SPEC section cited in src/, test/, README.md, CONTRIBUTING.md and docs/", () => {
    const sources = [
      ...filesUnder(join(root, "src"), ".ts"),
      ...filesUnder(join(root, "test"), ".ts"),
      join(root, "README.md"),
      join(root, "CONTRIBUTING.md"),
      ...filesUnder(join(root, "docs"), ".md"),
    ];
    const dangling = sources.flatMap((path) =>
      specReferences(readFileSync(path, "utf8"))
        .filter(({ section }) => !headings.has(section))
        .map(({ line, cited }) => `${shown(path)}:${line}: "${cited}" has no "## ${cited.match(/\d+/)![0]}. ..." heading in docs/design/contract.md`),
    );
    expect(dangling).toEqual([]);
  });
});

describe("links in docs/", () => {
  const docs = filesUnder(join(root, "docs"), ".md");

  it("finds the docs", () => {
    expect(docs.map(shown)).toContain("docs/design/contract.md");
  });

  it("every relative link reaches an existing file, and the anchor it names", () => {
    const broken = docs.flatMap((path) =>
      linksOf(readFileSync(path, "utf8")).flatMap(({ line, target }) => {
        const why = brokenLink(path, target);
        return why === undefined ? [] : [`${shown(path)}:${line}: (${target}): ${why}`];
      }),
    );
    expect(broken).toEqual([]);
  });
});
