"""A small MP3 frame reader for the music tests: the audio frames of a file, without ID3 tags and without the
Xing/Info (LAME) frame, so tests can compare qbtd's segments and decoded audio with exactly the source's audio."""

BITRATES = {  # (MPEG-1, MPEG-2/2.5) layer III, kbit/s
    1: [0, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320],
    2: [0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160],
}
RATES = {3: [44100, 48000, 32000], 2: [22050, 24000, 16000], 0: [11025, 12000, 8000]}


def frames(data):
    """[(offset, length, samples)] of the audio frames; the Xing/Info frame is left out."""
    at = 0
    if data[:3] == b"ID3":
        size = (data[6] << 21) | (data[7] << 14) | (data[8] << 7) | data[9]
        at = 10 + size + (10 if data[5] & 0x10 else 0)
    out = []
    end = len(data) - (128 if data[-128:-125] == b"TAG" else 0)
    while at + 4 <= end:
        h = int.from_bytes(data[at:at + 4], "big")
        if (h >> 21) & 0x7FF != 0x7FF:
            at += 1
            continue
        version = (h >> 19) & 3  # 3: MPEG-1, 2: MPEG-2, 0: MPEG-2.5
        layer = (h >> 17) & 3
        bitrate_index = (h >> 12) & 0xF
        rate_index = (h >> 10) & 3
        padding = (h >> 9) & 1
        if version == 1 or layer != 1 or bitrate_index in (0, 15) or rate_index == 3:
            at += 1
            continue
        rate = RATES[version][rate_index]
        mpeg1 = version == 3
        bitrate = BITRATES[1 if mpeg1 else 2][bitrate_index] * 1000
        length = (144 if mpeg1 else 72) * bitrate // rate + padding
        samples = 1152 if mpeg1 else 576
        mono = (h >> 6) & 3 == 3
        side = (17 if mono else 32) if mpeg1 else (9 if mono else 17)
        tag = data[at + 4 + side:at + 8 + side]
        if not out and tag in (b"Xing", b"Info"):
            at += length
            continue
        out.append((at, length, samples))
        at += length
    return out


def audio(data):
    """The audio frames' bytes, concatenated."""
    return b"".join(data[o:o + n] for o, n, _ in frames(data))


def rate(data):
    """The sample rate of the first audio frame."""
    o = frames(data)[0][0]
    h = int.from_bytes(data[o:o + 4], "big")
    return RATES[(h >> 19) & 3][(h >> 10) & 3]
