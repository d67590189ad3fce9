#!/usr/bin/env python3
"""Writes the objects of the gpu.binary ops in an MLIR file to disk.

    extract-gpu-binary.py step.mlir -o out/     # out/<binary>.<ext>

`echo-pipeline target=nvvm` leaves the kernels in `gpu.binary` ops: PTX text
with gpu-format=isa, a cubin with gpu-format=bin, a fatbin by default. The
extension is .ptx, .cubin or .fatbin accordingly. Prints one line per file.
"""
import argparse
import os
import re
import sys

BINARY = re.compile(r'gpu\.binary @([A-Za-z_0-9$.]+)\s')
# The object is the last string of `#gpu.object<target, [properties,]
# ["..." | assembly = "..."]>`; `features = "+ptx80">` ends the target.
OBJECT = re.compile(r'(?:(?<!= )|assembly = )"((?:[^"\\]|\\.)*)">')


def unescape(text):
    """MLIR prints non-printable bytes as \\XX (hex) and escapes \\ and \"."""
    out = bytearray()
    i = 0
    while i < len(text):
        c = text[i]
        if c != '\\':
            out += c.encode('utf-8')
            i += 1
            continue
        nxt = text[i + 1]
        if nxt in '\\"':
            out += nxt.encode()
            i += 2
        elif nxt == 'n':
            out += b'\n'
            i += 2
        elif nxt == 't':
            out += b'\t'
            i += 2
        else:
            out.append(int(text[i + 1:i + 3], 16))
            i += 3
    return bytes(out)


def kind(data):
    if data[:4] == b'\x7fELF':
        return 'cubin'
    if data[:4] == b'\x50\xed\x55\xba':
        return 'fatbin'
    return 'ptx'


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('input')
    parser.add_argument('-o', '--output-dir', default='.')
    args = parser.parse_args()
    text = open(args.input, encoding='utf-8').read()
    found = 0
    for line in text.splitlines():
        m = BINARY.search(line)
        if not m:
            continue
        obj = OBJECT.search(line)
        if not obj:
            sys.exit(f'error: gpu.binary @{m.group(1)} has no object')
        data = unescape(obj.group(1))
        os.makedirs(args.output_dir, exist_ok=True)
        path = os.path.join(args.output_dir, f'{m.group(1)}.{kind(data)}')
        with open(path, 'wb') as f:
            f.write(data)
        print(path)
        found += 1
    if not found:
        sys.exit(f'error: no gpu.binary in {args.input}')


if __name__ == '__main__':
    main()
