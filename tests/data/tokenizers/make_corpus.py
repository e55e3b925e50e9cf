#!/usr/bin/python3
"""Writes the tokenizer parity corpus: corpus/single.txt (one text a line) and
corpus/pairs.txt (text_a<TAB>text_b a line), deterministic (fixed seed, no
Unicode database used), written to be hard for a tokenizer.

    /usr/bin/python3 tests/data/tokenizers/make_corpus.py [--out DIR]

Lines are separated by "\\n" only: a line may hold \\r, \\v, \\f, U+0085,
U+2028 and U+2029, so readers must split on "\\n" and nothing else (Python's
str.splitlines would not do). No line ends with \\r. Characters are those
assigned by Unicode 8.0, and none is unassigned (Cn): see README.md for
why.
"""
import argparse
import os
import random

HERE = os.path.dirname(os.path.abspath(__file__))

# Hand-written hard cases, each one line of the single corpus.
HARD = [
    "", " ", "  ", "      ", "\t", " \t ", "a", "A", ".", "Hello, world!", "hello world",
    "  leading spaces", "trailing spaces   ", "   both   ", "many     inner      spaces",
    "tab\tinside\tline", "\ttab first", "tab last\t", "mixed \t \t whitespace",
    "nbsp\u00a0between\u00a0words", "ideographic\u3000space", "em\u2003space en\u2002space thin\u2009space",
    "line\u2028separator", "paragraph\u2029separator", "next\u0085line", "vertical\u000btab", "form\u000cfeed",
    "carriage\rreturn inside", "\u00a0\u00a0", "\u3000", "\u2003 \u2003",
    # control, format, private use and unassigned characters
    "nul\u0000inside", "\u0000", "a\u0000\u0000b", "ctl\u0001\u0002\u001fchars", "del\u007fchar",
    "c1\u0080\u0081\u009fcontrols", "zero\u200bwidth\u200bspace", "\u200b", "zwnj\u200cjoin\u200dx",
    "bom\ufeffinside", "\ufeffbom first", "soft\u00adhyphen", "rlo\u202eevil\u202c", "lrm\u200eand\u200frlm",
    "private\ue000use\uf8ff",
    "replacement\ufffdchar", "\ufffd", "word\u2060joiner", "interlinear\ufff9x\ufffby", "tag\U000e0041",
    # combining marks
    "\u0301", " \u0301 ", "\u0301\u0301\u0301", "a\u0301", "e\u0301te\u0301", "été", "ÉTÉ", "E\u0301TE\u0301",
    "x\u0308\u0301\u0323y", "Mu\u0308ller", "Müller", "MÜLLER", "Zoë", "naïve café", "nai\u0308ve cafe\u0301",
    "ﬁ ﬂ ﬀ ﬃ ﬄ ﬅ", "oﬃce", "Straße", "STRASSE", "ẞ", "ß", "İstanbul", "ISTANBUL", "ıi İI", "i\u0307",
    "Ǆ ǅ ǆ", "ǰ", "ŉ", "Å Å Å", "K K", "Ω Ω", "ſ",
    # Greek, incl. final sigma
    "ΟΔΟΣ", "Σ", "ΣΑΣ ΟΔΟΣ.", "ὈΔΥΣΣΕΎΣ", "Ἀθῆναι", "καλημέρα κόσμε", "ΚΑΛΗΜΕΡΑ ΣΑΣ", "ΑΣ.Σ", "Σ-Σ", "ςσΣ",
    "ΐ ΰ ᾼ ῼ", "ϐ ϑ ϕ ϖ ϰ ϱ ϲ ϵ",
    # Cyrillic, Armenian, Georgian
    "Привет, мир!", "ПРИВЕТ", "Ёлка ёлка", "й и\u0306", "Ґ ґ Ї ї", "Բարեւ", "ﬓ", "გამარჯობა",
    # Arabic, Hebrew, bidi
    "مرحبا بالعالم", "مَرْحَبًا", "ﻻ ﷲ ﷺ", "١٢٣٤٥ ۱۲۳", "שלום עולם", "שָׁלוֹם", "abc שלום 123 مرحبا",
    "\u202bembedded\u202c", "\u2067isolate\u2069",
    # Indic, Thai, other South and South-East Asian
    "नमस्ते दुनिया", "क्षत्रिय", "हिन्दी", "क़ ज़ फ़", "१२३४५", "নমস্কার", "வணக்கம்", "ಕನ್ನಡ",
    "สวัสดีครับ", "ภาษาไทย", "ກະລຸນາ", "ဗမာ", "ខ្មែរ", "සිංහල",
    # CJK, kana, Hangul
    "東京都", "中华人民共和国", "漢字かな交じり文", "日本語のテキストです。", "カタカナ ひらがな", "ｶﾀｶﾅ ﾟﾞ",
    "𠀋𡈽𠮷野家", "𪜀 𫝀 𫠠", "﨑 髙", "一二三四五", "㍻ ㌔ ㍿", "안녕하세요", "한국어 텍스트",
    "\u1100\u1161\u11a8", "ㄱㄴㄷ", "ᄀᄁ", "〜～~", "ー－―", "「引用」『二重』【括弧】", "。、・",
    # emoji
    "😀", "😀😀😀", "👍🏽", "👍 🏽", "👨‍👩‍👧‍👦", "🏳️‍🌈", "🇫🇷🇩🇪🇯🇵", "🇫", "❤️", "❤", "1️⃣ #️⃣",
    "😂🤖🦄", "👩🏾‍💻 coding", "I ❤️ NY", "emoji😀inside", "\U0001f600\u200d", "☕️☃︎",
    # numbers
    "3.14159", "1,000,000", "-42", "+1 (555) 123-4567", "2026-12-05T12:00:00Z", "0x1F600", "1e-10",
    "½ ¼ ¾", "x² y³ z¹", "Ⅻ ⅻ", "① ⑳", "⁰¹²³", "₀₁₂", "١٢٣", "๑๒๓", "12345678901234567890",
    "3rd 21st 100th", "$100 €50 £30 ¥20 ₹10",
    # punctuation runs
    "!!!???...", "?!", "—–-", "«guillemets»", "“curly” ‘quotes’", "¿Qué? ¡Sí!", "…", "...", "--",
    "(((nested)))", "[[brackets]]", "{braces}", "@#$%^&*", "a/b\\c|d", "~`'\"", "''", "\"\"", "_underscore_",
    "hello...world", "end.", "U.S.A.", "e.g., i.e.",
    # URLs, e-mail, code
    "https://example.com/path/to/page?query=1&other=two#frag",
    "http://user:pass@例え.jp:8080/パス", "mailto:someone@example.org", "www.example.co.uk",
    "def f(x): return x**2 + 1", "std::vector<int> v{1, 2, 3};", "if (a < b && c > d) { return; }",
    "<div class=\"x\">text</div>", "C:\\Users\\name\\file.txt", "SELECT * FROM t WHERE id=1;",
    "snake_case camelCase PascalCase kebab-case", "x+=1;y-=2", "#include <stdio.h>", "λx.x",
    # contractions
    "don't", "I'm", "they'll", "we've", "She'd", "IT'S", "you're", "o'clock", "rock'n'roll", "it’s",
    "'s", "'t 're 've 'm 'll 'd", "''s",
    # special tokens written inside text
    "[CLS]", "[SEP]", "[MASK]", "[PAD]", "[UNK]", "[cls]", "[CLS] hello [SEP]", "[CLS][SEP]",
    "x[MASK]y", "the [MASK] sat", "[ MASK ]", "[[CLS]]", "##s", "##", "[unused0]",
    "<s>", "</s>", "<pad>", "<unk>", "<mask>", "<s>hello</s>", "hello <mask> world", "hello<mask>world",
    "hello   <mask>", "<mask> first", "a \t<mask>", "\u00a0<mask>", "<mask><mask>", "<<mask>>",
    "<|endoftext|>", "＜ｓ＞", "<s ></s>", "</s></s>", "<S>", "▁", "▁hello", "hello▁world", "▁▁",
    # repetition
    "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", "ーーーーーーーー", "!!!!!!!!!!!!!!!!!!!!", "..........",
    "ababababababababababab", "     .     ", "the the the the the",
    # word length at WordPiece's 100-character bound
    "a" * 99, "a" * 100, "a" * 101, "é" * 100, "é" * 101, "Mu\u0308ller" * 17, "x" * 100 + " y",
    # mixed scripts in one word
    "abcабвαβγ", "東京tokyo", "hello世界", "русскийEnglish", "٣x", "d\u00e9j\u00e0vu",
    # math and letter-like symbols
    "∑∫√∞≠≤≥", "𝔘𝔫𝔦𝔠𝔬𝔡𝔢", "𝟘𝟙𝟚", "℃ ℉ № ™ ℡", "ℌℑℜ", "ⓐⓑⓒ", "㎞ ㎏", "ｈｅｌｌｏ　ｗｏｒｌｄ",
    "ＡＢＣ１２３！？", "ａｂｃ－ｘｙｚ",
]

# Long words: a few thousand characters each.
LONG = [
    "ab" * 1500,
    "Donaudampfschifffahrtsgesellschaftskapitän" * 60,
    "東" * 1200,
    "😀" * 600,
    "नमस्ते" * 300,
    "7" * 3000,
    "é" * 1500,
    "x" * 2000 + " tail",
]

# Word pools for the generated lines.
POOLS = {
    "en": ("the of and to in is was for on that with as by at from it be this are or his an which "
           "tokenizer transformer attention encoder embedding language model sentence Paris Berlin "
           "Hello World Quick Brown Fox jumps over lazy dog running jumped unbelievable "
           "internationalization antidisestablishmentarianism COVID-19 iPhone e-mail well-known "
           "OpenAI GPT BERT naïve résumé coöperate façade jalapeño piñata Ångström").split(),
    "de": "Müller Straße Größe über Fußgänger schön Mädchen Äpfel ÖL Übung weiß heißen".split(),
    "fr": "été élève où garçon français cœur Noël ça déjà hôtel forêt œuvre".split(),
    "es": "niño año mañana corazón canción pingüino ¿cómo ¡hola!".split(),
    "el": "ΟΔΟΣ οδός Σωκράτης ΣΟΦΙΑ λόγος ΚΟΣΜΟΣ φιλοσοφία ψυχή Ἑλλάς".split(),
    "ru": "Москва ПРИВЕТ щука объявление Ёж съешь ещё этих мягких французских булок".split(),
    "ar": "مرحبا كتاب المدرسة العربية مُحَمَّد السَّلامُ ٢٠٢٦".split(),
    "he": "שלום ספר ירושלים עִבְרִית תּוֹרָה".split(),
    "hi": "नमस्ते भारत हिन्दी विद्यालय क्षत्रिय ज्ञान श्री".split(),
    "th": "สวัสดี ประเทศไทย ภาษา กรุงเทพมหานคร".split(),
    "zh": "中国 北京 汉字 学习 人工智能 机器学习 語言".split(),
    "ja": "東京 ひらがな カタカナ 日本語 すし ラーメン ｶﾞｷﾞ".split(),
    "ko": "서울 한국어 안녕 감사합니다 컴퓨터".split(),
    "emoji": "😀 👍🏽 👨‍👩‍👧‍👦 🏳️‍🌈 🇫🇷 ❤️ 🤖 🦄 🎉 🔥 ✨ 1️⃣".split(),
    "num": "0 1 42 3.14 1,000 2026 -7 +33 ½ ² ١٢ ४२ 10% 1st".split(),
    "punct": list(".,;:!?-—()[]{}\"'«»“”…/\\@#$%&*+=<>|~^_`") + ["...", "?!", "--"],
    "special": ["[CLS]", "[SEP]", "[MASK]", "<s>", "</s>", "<mask>", "<pad>", "<unk>", "[UNK]"],
    "odd": ["\u200b", "\u200d", "\ufeff", "\u00ad", "\u0301", "\u0000", "\u00a0", "\u3000", "\u2028",
            "\u0085", "\ufffd", "\ue000", "ﬁ", "Ⅻ", "ＡＢ", "𝔘", "𠀋", "i\u0307", "\u0007", "\u001b"],
}
SEPARATORS = [" "] * 12 + ["  ", "   ", "\u00a0", "\u3000", "", "", " \u200b ", "\u2009"]
POOL_WEIGHTS = {"en": 8, "de": 2, "fr": 2, "es": 1, "el": 2, "ru": 2, "ar": 1, "he": 1, "hi": 1,
                "th": 1, "zh": 2, "ja": 2, "ko": 1, "emoji": 2, "num": 2, "punct": 3, "special": 1,
                "odd": 1}


def generated_line(rng, allow_tab):
    names = [n for n, w in POOL_WEIGHTS.items() for _ in range(w)]
    n = rng.choice([1, 2, 3, 5, 8, 13, 21])
    parts = []
    for _ in range(n):
        word = rng.choice(POOLS[rng.choice(names)])
        r = rng.random()
        if r < 0.08:
            word = word.upper()
        elif r < 0.14:
            word = word.lower()
        elif r < 0.18:
            word = word.capitalize()
        parts.append(word)
        sep = rng.choice(SEPARATORS)
        if allow_tab and rng.random() < 0.03:
            sep = "\t"
        parts.append(sep)
    line = "".join(parts[:-1])
    if rng.random() < 0.1:
        line = " " * rng.randint(1, 3) + line
    if rng.random() < 0.1:
        line = line + " " * rng.randint(1, 3)
    return line


def pair_hard_cases():
    texts = ["", " ", "a", "Hello, world!", "[SEP]", "<mask>", "</s>", "ΟΔΟΣ", "東京", "😀", "  x  ",
             "\u0000", "\u200b", "Müller", "a" * 101, "don't", "İ"]
    pairs = []
    for a in texts:
        for b in texts[:9]:
            pairs.append((a, b))
    pairs += [("What is a tokenizer?", "A tokenizer splits text into ids."),
              ("Question [SEP] inside", "Answer [CLS] inside"),
              ("first </s> </s> second", "<s> third"),
              ("long " * 200, "short"),
              ("short", "long " * 200)]
    return pairs


def added_token_cases():
    """The added tokens' corpus (corpus/added.txt): added tokens of every folder
    (special and not, normalized and not, lstrip) in and around text, and runs
    of 1 to 30 spaces, which ModernBERT's tokenizer matches as added tokens."""
    lines = []
    for n in range(1, 31):
        sp = " " * n
        lines += [sp, "a" + sp + "b", sp + "a", "a" + sp, "x" + sp + "[MASK]", "[CLS]" + sp + "y"]
    tokens = ["|||IP_ADDRESS|||", "|||EMAIL_ADDRESS|||", "|||PHONE_NUMBER|||", "<|padding|>",
              "<|endoftext|>", "[MASK]", "[CLS]", "[SEP]", "[PAD]", "[UNK]", "<unk>", "<UNK>",
              "<s>", "</s>", "<pad>", "<mask>"]
    for t in tokens:
        lines += [t, "a" + t + "b", " " + t + " ", "   " + t + "   ", "x\u00a0" + t, t + t,
                  "a \t " + t, t.lower(), t.upper()]
    lines += [
        "ip |||IP_ADDRESS||| and mail |||EMAIL_ADDRESS||| or call |||PHONE_NUMBER|||",
        "||||IP_ADDRESS||||", "|||IP_ADDRESS", "IP_ADDRESS|||", "|||ip_address|||",
        "|||IP_ADDRESS|||  |||EMAIL_ADDRESS|||", "<|padding|><|endoftext|>", "<|padding|>  x",
        "<unk\u0301>", "<UNK\u0301>", "<\u00fcnk>", "<U\u0308NK>", "[unk]", "[Mask]",
        "a  e\u0301  b", "\u212b  \u212b", "A\u030a   b", "\u1e9b\u0323  x",
        "  \t  ", "a \t\t  b", "   \r   ", "  \u2028  ", "  \u00a0  ", "\u3000  \u3000",
        "\u2003   \u2003", "  \u200b  ", "  \u0000  ", "\ufeff   x",
        "a" + " " * 48 + "b", " " * 50, " " * 24 + "\t" + " " * 24, "x" + " " * 25,
        "def f():    return 1", "        if x:            y()",
        "[CLS]  [SEP]   [PAD]    [MASK]     [UNK]", "<s>  </s>   <pad>    <mask>",
        "word   [MASK]   word", "word\u00a0\u00a0[MASK]", "[MASK]\u3000x",
    ]
    return lines


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", default=os.path.join(HERE, "corpus"))
    args = parser.parse_args()
    rng = random.Random(20261205)
    single = list(HARD) + list(LONG)
    while len(single) < 3000:
        single.append(generated_line(rng, allow_tab=True))
    pairs = [a + "\t" + b for a, b in pair_hard_cases()]
    while len(pairs) < 1500:
        pairs.append(generated_line(rng, False) + "\t" + generated_line(rng, False))
    added = added_token_cases()
    for line in single + pairs + added:
        assert "\n" not in line and not line.endswith("\r"), repr(line)
    for line in pairs:
        assert line.count("\t") == 1, repr(line)
    os.makedirs(args.out, exist_ok=True)
    for name, lines in (("single.txt", single), ("pairs.txt", pairs), ("added.txt", added)):
        with open(os.path.join(args.out, name), "w", encoding="utf-8", newline="") as f:
            f.write("".join(line + "\n" for line in lines))


if __name__ == "__main__":
    main()
