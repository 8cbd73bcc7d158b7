"""Times python-astm's record codec over the corpus section 1 of the bench hands it.

Run by bench/codec.ts, not by hand:

    python3 bench/pyastm-codec.py <PYASTM_DIR> <corpus.json> <passes per round> <rounds>

<corpus.json> is a JSON array of message texts (records separated by CR, each
text ending in CR); the characters are bytes (latin-1), as the link layer hands
them over. python-astm (kxepal/python-astm, BSD) is not part of this package:
PYASTM_DIR is a checkout of it, and this script only imports its astm.codec.

Decoding a message is what python-astm's own decode_frame does with the records
of a frame: split on CR, decode_record each. Encoding is encode_record of every
record joined by CR, the same text shape encodeMessage writes (encode_message
would add STX, frame number, checksum and CR LF, which encodeMessage leaves to
the link layer). Both directions count the bytes of the corpus text, as the
package's figures do, and a round is whole passes over the corpus, as the
bench's are: its messages differ so much (a 32 kB one of base64 data, many of
a few hundred bytes) that a part of a pass would be another mix.

Each round is timed by the clock (as the bench's MB/s figures) and by the
CPU time of this process (what the bench's ratios use; see bench/codec.ts).

Prints one JSON object on stdout.
"""
import collections
import collections.abc
import importlib
import json
import sys
import time
import types

ENCODING = 'latin-1'


def load_codec(root):
    # python-astm's codec does `from collections import Iterable`, which Python
    # 3.10 removed; put the name back rather than touch python-astm's source.
    if not hasattr(collections, 'Iterable'):
        collections.Iterable = collections.abc.Iterable
    # Import astm.codec without running astm/__init__.py: that one also imports
    # the client, server and asyncore-style loop, none of which is measured, and
    # any of which may not import on a newer Python.
    package = types.ModuleType('astm')
    package.__path__ = [root.rstrip('/') + '/astm']
    sys.modules['astm'] = package
    return importlib.import_module('astm.codec')


def records_of(message):
    # The last CR ends the last record; what follows it is no record.
    body = message[:-1] if message.endswith(b'\r') else message
    return body.split(b'\r')


def run_round(messages, passes, one):
    done = 0
    count = 0
    started = time.perf_counter()
    cpu = time.process_time()
    for _ in range(passes):
        for i in range(len(messages)):
            done += one(i)
            count += 1
    return {'bytes': done, 'messages': count, 'seconds': time.perf_counter() - started, 'cpuSeconds': time.process_time() - cpu}


def main():
    root, corpus_file, passes, rounds = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
    codec = load_codec(root)
    decode_record, encode_record = codec.decode_record, codec.encode_record
    with open(corpus_file, encoding='utf-8') as f:
        messages = [text.encode(ENCODING) for text in json.load(f)]
    decoded = [[decode_record(r, ENCODING) for r in records_of(m)] for m in messages]

    def decode_one(i):
        m = messages[i]
        [decode_record(r, ENCODING) for r in records_of(m)]
        return len(m)

    def encode_one(i):
        b'\r'.join([encode_record(r, ENCODING) for r in decoded[i]]) + b'\r'
        return len(messages[i])

    # No JIT to warm up, but the first pass pays for allocating the small-object pools.
    run_round(messages, 1, decode_one)
    run_round(messages, 1, encode_one)
    result = {'python': sys.version.split()[0], 'records': sum(len(d) for d in decoded), 'decode': [], 'encode': []}
    for _ in range(rounds):
        result['decode'].append(run_round(messages, passes, decode_one))
        result['encode'].append(run_round(messages, passes, encode_one))
    json.dump(result, sys.stdout)
    sys.stdout.write('\n')


if __name__ == '__main__':
    main()
