#!/usr/bin/env python3
"""Seed corpus for fuzz_protocol: one file per golden vector of tests/vectors/protocol.jsonl.

Usage: protocol_corpus.py OUTDIR [VECTORS]

Each vector's text (or its decoded text_b64) is written as OUTDIR/<name>, valid and invalid
alike (invalid texts lead the fuzzer to the decoder's error paths). Blank lines and lines
starting with '#' are skipped; a line that is not a JSON object is reported and skipped,
so a vectors file that is still being written does not stop the build of a corpus.
"""
import base64
import json
import os
import re
import sys


def main(argv):
    if len(argv) not in (2, 3):
        sys.stderr.write(__doc__)
        return 2
    out = argv[1]
    here = os.path.dirname(os.path.abspath(__file__))
    vectors = argv[2] if len(argv) == 3 else os.path.join(here, '..', 'vectors', 'protocol.jsonl')
    os.makedirs(out, exist_ok=True)
    written = 0
    with open(vectors, encoding='utf-8') as f:
        for lineno, line in enumerate(f, 1):
            line = line.strip()
            if not line or line.startswith('#'):
                continue
            try:
                v = json.loads(line)
                if 'text_b64' in v:
                    data = base64.b64decode(v['text_b64'])
                else:
                    data = v['text'].encode('utf-8')
                name = re.sub(r'[^A-Za-z0-9_.-]', '_', v.get('name') or 'line-%d' % lineno)
            except (ValueError, KeyError, TypeError, AttributeError) as e:
                sys.stderr.write('%s:%d: skipped: %s\n' % (vectors, lineno, e))
                continue
            with open(os.path.join(out, name), 'wb') as g:
                g.write(data)
            written += 1
    print('%d seeds written to %s' % (written, out))
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
