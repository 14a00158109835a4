"""A tiny retrieval system for a cupboard systems phase: BM25 in pure Python (no packages).

It reads what the platform mounts and writes what the platform reads (docs/systems.md):
  /input/topics/<lang>.tsv    `qid<TAB>query text` per line, one file per language
  /input/corpus/*.jsonl       `{"docid": ..., "title": ..., "text": ...}` per line; `<lang>.jsonl`
                              holds that language's passages, any other .jsonl file serves every language
  /output/<lang>.trec         one TREC run per language: `qid Q0 docid rank score bm25`

The same file runs by hand: `python bm25.py --topics DIR --corpus DIR --output DIR`. Everything is
deterministic (ties broken by docid, scores printed to six decimals), so the platform's run and a
run made by hand are the same bytes.
"""

from __future__ import annotations

import argparse
import json
import math
import re
import sys
from collections import Counter, defaultdict
from pathlib import Path

K1, B, DEPTH = 0.9, 0.4, 100
WORD = re.compile(r"\w+")


def unspaced(ch: str) -> bool:
    """Scripts written without spaces (Chinese, Japanese, Thai...): indexed by character bigrams."""
    code = ord(ch)
    return 0x0E00 <= code <= 0x0EFF or 0x2E80 <= code <= 0x9FFF or 0xAC00 <= code <= 0xD7AF


def tokens(text: str) -> list[str]:
    out: list[str] = []
    for word in WORD.findall(text.casefold()):
        if any(unspaced(ch) for ch in word) and len(word) > 1:
            out.extend(word[i:i + 2] for i in range(len(word) - 1))
        else:
            out.append(word)
    return out


def read_corpus(paths: list[Path]) -> dict[str, list[str]]:
    passages: dict[str, list[str]] = {}
    for path in paths:
        with open(path, encoding="utf-8") as handle:
            for line in handle:
                if line.strip():
                    row = json.loads(line)
                    passages[str(row["docid"])] = tokens(f"{row.get('title') or ''} {row.get('text') or ''}")
    return passages


class Index:
    def __init__(self, passages: dict[str, list[str]]):
        self.lengths = {docid: len(words) for docid, words in passages.items()}
        self.average = sum(self.lengths.values()) / max(len(self.lengths), 1)
        self.postings: dict[str, list[tuple[str, int]]] = defaultdict(list)
        for docid in sorted(passages):
            for word, count in Counter(passages[docid]).items():
                self.postings[word].append((docid, count))

    def search(self, query: str) -> list[tuple[str, float]]:
        n = len(self.lengths)
        scores: dict[str, float] = defaultdict(float)
        for word in sorted(set(tokens(query))):
            posting = self.postings.get(word, [])
            idf = math.log(1 + (n - len(posting) + 0.5) / (len(posting) + 0.5))
            for docid, count in posting:
                norm = K1 * (1 - B + B * self.lengths[docid] / self.average)
                scores[docid] += idf * count * (K1 + 1) / (count + norm)
        return sorted(scores.items(), key=lambda item: (-round(item[1], 6), item[0]))[:DEPTH]


def run(topics_dir: Path, corpus_dir: Path, output_dir: Path) -> None:
    files = sorted(corpus_dir.glob("*.jsonl")) if corpus_dir.is_dir() else []
    for topics in sorted(topics_dir.glob("*.tsv")):
        lang = topics.stem
        own = [path for path in files if path.stem == lang]
        shared = [path for path in files if not any(path.stem == t.stem for t in topics_dir.glob("*.tsv"))]
        index = Index(read_corpus(own + shared))
        lines = []
        for line in topics.read_text(encoding="utf-8").splitlines():
            qid, _, query = line.partition("\t")
            for rank, (docid, score) in enumerate(index.search(query), start=1):
                lines.append(f"{qid} Q0 {docid} {rank} {score:.6f} bm25\n")
        (output_dir / f"{lang}.trec").write_text("".join(lines), encoding="utf-8")
        print(f"{lang}: {len(index.lengths)} passages, {len(lines)} lines", file=sys.stderr)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--topics", type=Path, default=Path("/input/topics"))
    parser.add_argument("--corpus", type=Path, default=Path("/input/corpus"))
    parser.add_argument("--output", type=Path, default=Path("/output"))
    args = parser.parse_args()
    run(args.topics, args.corpus, args.output)


if __name__ == "__main__":
    main()
