"""Friendly generated nicknames, in the page's language: an adjective and an animal.

蓝色的猫 or "blue cat"; unique within a room (a number is added when the pair is taken).
"""

import secrets
from collections.abc import Collection

from classroom.refusals import Invalid

LANGS = ("zh", "en")
ADJECTIVES = {
    "zh": (
        "蓝色的", "红色的", "绿色的", "金色的", "紫色的", "快乐的", "勇敢的", "安静的", "聪明的",
        "好奇的", "温柔的", "飞快的", "闪亮的", "淘气的", "认真的", "友好的", "沉稳的", "机灵的",
        "活泼的", "耐心的",
    ),
    "en": (
        "blue", "red", "green", "golden", "purple", "happy", "brave", "quiet", "clever",
        "curious", "gentle", "swift", "shiny", "cheeky", "careful", "friendly", "calm", "nimble",
        "lively", "patient",
    ),
}  # fmt: skip
ANIMALS = {
    "zh": (
        "猫", "熊猫", "老虎", "海豚", "狐狸", "兔子", "企鹅", "松鼠", "大象", "猫头鹰", "鲸鱼",
        "刺猬", "考拉", "水獭", "骆驼", "孔雀", "海龟", "蜜蜂", "鹦鹉", "小鹿",
    ),
    "en": (
        "cat", "panda", "tiger", "dolphin", "fox", "rabbit", "penguin", "squirrel", "elephant",
        "owl", "whale", "hedgehog", "koala", "otter", "camel", "peacock", "turtle", "bee", "parrot",
        "deer",
    ),
}  # fmt: skip


def check_lang(lang: object) -> str:
    """``lang`` when the app speaks it, else a ValueError with a sentence."""
    if lang not in LANGS:
        raise Invalid("bad_lang")
    return str(lang)


def random_pair(lang: str) -> str:
    """One adjective and one animal, as the language writes them together."""
    adjective = secrets.choice(ADJECTIVES[lang])
    animal = secrets.choice(ANIMALS[lang])
    return f"{adjective}{animal}" if lang == "zh" else f"{adjective} {animal}"


def unique_name(name: str, taken: Collection[str]) -> str:
    """``name``, or ``name`` with the smallest number from 2 that nobody in ``taken`` has.

    Example:
        >>> unique_name("blue cat", {"blue cat", "blue cat 2"})
        'blue cat 3'
    """
    if name not in taken:
        return name
    number = 2
    while f"{name} {number}" in taken:
        number += 1
    return f"{name} {number}"


def nickname(lang: str, taken: Collection[str], tries: int = 8) -> str:
    """A friendly nickname in ``lang`` that nobody in ``taken`` has: a free pair if one of a few
    random draws is free, else the last draw with a number."""
    name = random_pair(lang)
    for _ in range(tries - 1):
        if name not in taken:
            return name
        name = random_pair(lang)
    return unique_name(name, taken)
