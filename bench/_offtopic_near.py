"""Near-topic questions for the abstention benchmark: questions a user of *this* conversation
could ask, in its own everyday vocabulary, whose answer it does not hold (written for
memstrata, deterministic, English and Traditional Chinese).

Each topic is a question frame about one kind of personal fact (a pet's name, a trip, an
instrument, an allergy, a relative, a purchase, a service's port ...) and a list of things of
that kind, each with its English and Chinese words and the synonyms that would also answer
it. For a conversation, :func:`near_topic_for` fills each frame with the first thing none of
whose words (as the in-memory BM25 splits them: stemmed words, CJK pairs) occurs anywhere in
the conversation, and asks it about one of the conversation's people (by name) or in the
first person, alternating. So the question shares the frame's common words ("name", "when",
"travel", a speaker's name) with the conversation, often many of them, while the one thing it
asks about was never said: a search that returns a matched hit for it has returned a message
about something else.

Topics are split in two by the parity of their position (even: train, odd: eval), so a frame
and its fillers never sit in both halves; a ranker may be trained or tuned on the train half
only.
"""

from __future__ import annotations

import zlib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from memstrata.search._bm25 import tokens

__all__ = ["NEAR_TOPICS", "NearTopic", "near_topic_for"]


@dataclass(frozen=True)
class NearTopic:
    en: str
    """English frame: ``{who}`` is a subject ("Caroline" / "I"), ``{whose}`` a possessive
    ("Caroline's" / "my"), ``{x}`` the thing."""
    zh: str
    """Chinese frame: ``{who}`` ("Caroline" / "我") and ``{x}``."""
    things: tuple[tuple[str, str], ...]
    """(English words, Chinese words) per thing; ``|`` separates synonyms, the first is
    asked."""


_T = NearTopic
NEAR_TOPICS: tuple[NearTopic, ...] = (
    _T("What is the name of {whose} {x}?", "{who}養的{x}叫什麼名字？",
       (("iguana", "鬣蜥"), ("hamster", "倉鼠"), ("parrot|parakeet", "鸚鵡"),
        ("ferret", "雪貂"), ("tortoise|turtle", "烏龜|陸龜"), ("goldfish", "金魚"))),
    _T("When did {who} travel to {x}?", "{who}什麼時候去{x}旅行？",
       (("Iceland", "冰島"), ("Peru", "秘魯"), ("Morocco", "摩洛哥"), ("Norway", "挪威"),
        ("Kenya", "肯亞"), ("Chile", "智利"))),
    _T("When did {who} start playing the {x}?", "{who}什麼時候開始學{x}？",
       (("saxophone|sax", "薩克斯風"), ("harp", "豎琴"), ("accordion", "手風琴"),
        ("trombone", "長號"), ("banjo", "班鳩琴"), ("ukulele", "烏克麗麗"))),
    _T("Which team does {who} play {x} with?", "{who}跟哪一隊打{x}？",
       (("rugby", "橄欖球"), ("cricket", "板球"), ("lacrosse", "曲棍球"),
        ("handball", "手球"), ("volleyball", "排球"))),
    _T("What happens when {who} eats {x}? Is it an allergy?", "{who}吃{x}會過敏嗎？",
       (("shellfish|shrimp", "貝類|蝦子"), ("sesame", "芝麻"), ("kiwi", "奇異果"),
        ("mango", "芒果"), ("buckwheat", "蕎麥"))),
    _T("What colour is {whose} {x}?", "{who}的{x}是什麼顏色？",
       (("motorcycle|motorbike", "機車|摩托車"), ("sailboat", "帆船"),
        ("caravan|camper", "露營車"), ("tractor", "拖拉機"), ("canoe", "獨木舟"))),
    _T("Where did {who} study {x}?", "{who}在哪裡念{x}？",
       (("veterinary medicine|vet school", "獸醫"), ("architecture", "建築"),
        ("astronomy", "天文"), ("dentistry", "牙醫"), ("oceanography", "海洋學"))),
    _T("What is the name of {whose} {x}?", "{who}的{x}叫什麼名字？",
       (("grandfather|grandpa", "爺爺|外公"), ("stepbrother", "繼兄|繼弟"),
        ("godmother", "教母"), ("niece", "姪女|外甥女"), ("uncle", "叔叔|舅舅"))),
    _T("What is {whose} favourite {x} recipe?", "{who}最喜歡的{x}食譜是什麼？",
       (("lasagna|lasagne", "千層麵"), ("paella", "海鮮飯"), ("ramen", "拉麵"),
        ("risotto", "燉飯"), ("goulash", "燉牛肉"))),
    _T("Which {x} novel did {who} read last?", "{who}最近讀了哪一本{x}小說？",
       (("detective", "偵探"), ("romance", "言情"), ("horror", "恐怖"),
        ("western", "西部"), ("spy", "間諜"))),
    _T("How much did {who} pay for the {x}?", "{who}的{x}花了多少錢？",
       (("treehouse", "樹屋"), ("greenhouse", "溫室"), ("sauna", "三溫暖"),
        ("fireplace", "壁爐"), ("hot tub|jacuzzi", "按摩浴缸"))),
    _T("Who came to {whose} {x}?", "誰去了{who}的{x}？",
       (("housewarming", "入厝"), ("bachelor party", "單身派對"),
        ("retirement party", "退休派對"), ("baby shower", "迎嬰派對"),
        ("christening|baptism", "受洗"))),
    _T("When is {whose} {x} appointment?", "{who}的{x}門診是什麼時候？",
       (("dermatologist|dermatology", "皮膚科"), ("orthodontist|braces", "矯正"),
        ("cardiologist|cardiology", "心臟科"), ("podiatrist", "足科"),
        ("allergist", "過敏科"))),
    _T("Where does {who} take {x} classes?", "{who}在哪裡上{x}課？",
       (("pottery|ceramics", "陶藝"), ("fencing", "擊劍"), ("salsa", "騷莎"),
        ("archery", "射箭"), ("calligraphy", "書法"), ("woodworking", "木工"))),
    _T("Which version of {x} are we running in production?", "正式環境的{x}是哪個版本？",
       (("Elasticsearch", "Elasticsearch"), ("Cassandra", "Cassandra"),
        ("RabbitMQ", "RabbitMQ"), ("Erlang", "Erlang"), ("Haskell", "Haskell"))),
    _T("How much did {who} spend on the {x}?", "{who}買{x}花了多少錢？",
       (("drone", "空拍機"), ("telescope", "望遠鏡"), ("kayak", "皮艇"),
        ("treadmill", "跑步機"), ("harpsichord", "大鍵琴"))),
    _T("Which {x} concert did {who} go to?", "{who}去看了哪一場{x}演唱會？",
       (("reggae", "雷鬼"), ("bluegrass", "藍草"), ("heavy metal", "重金屬"),
        ("opera", "歌劇"), ("techno", "電子"))),
    _T("What did {who} order at the {x} restaurant?", "{who}在{x}餐廳點了什麼？",
       (("Ethiopian", "衣索比亞"), ("Georgian", "喬治亞"), ("Lebanese", "黎巴嫩"),
        ("Peruvian", "秘魯"), ("Hungarian", "匈牙利"))),
    _T("How old is {whose} {x}?", "{who}的{x}幾歲了？",
       (("grandson", "孫子"), ("stepdaughter", "繼女"), ("godson", "教子"),
        ("nephew", "外甥|姪子"), ("great-grandmother", "曾祖母"))),
    _T("Why did {who} move to {x}?", "{who}為什麼搬到{x}？",
       (("Seattle", "西雅圖"), ("Melbourne", "墨爾本"), ("Lisbon", "里斯本"),
        ("Denver", "丹佛"), ("Hualien", "花蓮"), ("Winnipeg", "溫尼伯"))),
    _T("Where does {who} volunteer as a {x}?", "{who}在哪裡當{x}志工？",
       (("lifeguard", "救生員"), ("firefighter", "消防員"), ("zookeeper", "保育員"),
        ("museum docent|docent", "導覽員"), ("beekeeper", "養蜂"))),
    _T("How are {whose} {x} growing?", "{who}種的{x}長得怎麼樣？",
       (("sunflowers|sunflower", "向日葵"), ("orchids|orchid", "蘭花"),
        ("pumpkins|pumpkin", "南瓜"), ("cactus|cacti", "仙人掌"),
        ("blueberries|blueberry", "藍莓"))),
    _T("What did {who} think of the {x} series?", "{who}覺得那部{x}影集怎麼樣？",
       (("zombie", "殭屍"), ("vampire", "吸血鬼"), ("pirate", "海盜"),
        ("dinosaur", "恐龍"), ("samurai", "武士"))),
    _T("Why did {who} start learning {x}?", "{who}為什麼開始學{x}？",
       (("Swahili", "史瓦希利語"), ("Icelandic", "冰島語"), ("Finnish", "芬蘭語"),
        ("Portuguese", "葡萄牙語"), ("Arabic", "阿拉伯語"))),
    _T("Did {who} win the {x} tournament?", "{who}有贏得{x}比賽嗎？",
       (("chess", "西洋棋"), ("poker", "撲克"), ("darts", "飛鏢"), ("bowling", "保齡球"),
        ("badminton", "羽毛球"))),
    _T("Which bank holds {whose} {x}?", "{who}的{x}是在哪家銀行辦的？",
       (("mortgage", "房貸"), ("student loan", "學貸"), ("pension", "退休金"),
        ("car loan", "車貸"))),
    _T("How did {who} break {whose} {x}?", "{who}的{x}是怎麼骨折的？",
       (("wrist", "手腕"), ("collarbone", "鎖骨"), ("elbow", "手肘"), ("ankle", "腳踝"),
        ("pinky", "小指"))),
    _T("When was {whose} {x} repaired?", "{who}的{x}什麼時候修好的？",
       (("dishwasher", "洗碗機"), ("lawnmower", "割草機"), ("boiler|water heater", "熱水器"),
        ("washing machine", "洗衣機"), ("garage door", "車庫門"))),
    _T("How much is {whose} {x} membership?", "{who}的{x}會員一個月多少錢？",
       (("golf", "高爾夫"), ("climbing gym|bouldering", "攀岩"), ("yacht club", "遊艇"),
        ("ski", "滑雪"), ("squash", "壁球"))),
    _T("Which port does the {x} service listen on?", "{x}服務聽的是哪個埠號？",
       (("Memcached", "Memcached"), ("Grafana", "Grafana"), ("Kafka", "Kafka"),
        ("MongoDB", "MongoDB"), ("Consul", "Consul"))),
    _T("When is the deadline for {whose} {x}?", "{who}的{x}截止日是哪天？",
       (("grant proposal|grant", "補助計畫"), ("visa application|visa", "簽證"),
        ("thesis|dissertation", "論文"), ("patent", "專利"), ("tax return", "報稅"))),
    _T("Who is leading the {x} workshop?", "誰負責帶{x}工作坊？",
       (("negotiation", "談判"), ("first aid", "急救"), ("accessibility", "無障礙"),
        ("embroidery", "刺繡"), ("bookbinding", "裝訂"))),
    _T("Where did {who} buy the {x}?", "{who}的{x}是在哪裡買的？",
       (("surfboard", "衝浪板"), ("snowboard", "雪板"), ("sewing machine", "縫紉機"),
        ("aquarium|fish tank", "水族箱"), ("wedding dress", "婚紗"))),
    _T("What happened during the {x} at {whose} place?", "{who}家{x}那次發生了什麼事？",
       (("earthquake", "地震"), ("flood", "淹水"), ("blackout|power outage", "停電"),
        ("burglary|break-in", "闖空門"), ("tornado", "龍捲風"))),
    _T("What is {whose} favourite {x}?", "{who}最喜歡的{x}是什麼？",
       (("constellation", "星座"), ("cocktail", "調酒"), ("cheese", "起司"),
        ("board game", "桌遊"), ("perfume", "香水"))),
    _T("How often does {who} go {x}?", "{who}多久去{x}一次？",
       (("scuba diving|diving", "潛水"), ("horseback riding|horse riding", "騎馬"),
        ("bird watching|birdwatching", "賞鳥"), ("ice skating", "溜冰"),
        ("bungee jumping", "高空彈跳"))),
    _T("What does {whose} {x} do for a living?", "{who}的{x}是做什麼工作的？",
       (("landlord", "房東"), ("roommate|flatmate", "室友"), ("father-in-law", "岳父|公公"),
        ("ex-husband", "前夫"), ("stepfather|stepdad", "繼父"))),
    _T("What award did {whose} {x} win?", "{who}的{x}得了什麼獎？",
       (("documentary", "紀錄片"), ("sculpture", "雕塑"), ("podcast", "播客"),
        ("science fair project", "科展"), ("short film", "短片"))),
    _T("What is the wifi password at {whose} {x}?", "{who}的{x}無線網路密碼是什麼？",
       (("cabin", "小木屋"), ("beach house", "海邊別墅"), ("houseboat", "船屋"),
        ("studio", "工作室"), ("chalet", "山屋"))),
    _T("When is {whose} {x} due for its service?", "{who}的{x}什麼時候要保養？",
       (("scooter", "速克達"), ("jet ski", "水上摩托車"), ("pickup truck|pickup", "貨卡"),
        ("minivan", "休旅車"), ("tandem bike|tandem", "協力車"))),
)
"""The frames and their things, in a fixed order."""

_NOT_PEOPLE = frozenset({"user", "assistant", "system", "tool"})


def _terms(words: str) -> set[str]:
    out: set[str] = set()
    for synonym in words.split("|"):
        out.update(tokens(synonym))
    return out


def _people(senders: Sequence[str]) -> list[str]:
    """The conversation's people, most frequent first (roles are no names)."""
    counts: dict[str, int] = {}
    for s in senders:
        if s.lower() not in _NOT_PEOPLE:
            counts[s] = counts.get(s, 0) + 1
    return sorted(counts, key=lambda s: (-counts[s], s))


def _fill(frame: str, who: str | None, x: str, lang: str) -> str:
    if lang == "zh":
        return frame.format(who=who or "我", x=x)
    if who is None:
        text = frame.format(who="I", whose="my", x=x)
    else:
        text = frame.format(who=who, whose=f"{who}'s", x=x)
    return text.replace("does I ", "do I ")


def near_topic_for(texts: Iterable[str], senders: Sequence[str]
                   ) -> dict[str, list[str]]:
    """``{"train": [...], "eval": [...]}``: for each frame, an English and a Chinese question
    about one of its things that the conversation (``texts``, ``senders``) never mentions in
    any of its words (which one turns with the conversation, so the sets vary); frames with no
    such thing are skipped."""
    vocab: set[str] = set()
    turn = 0
    for text in texts:
        vocab.update(tokens(text))
        turn = zlib.crc32(text.encode("utf-8"), turn)
    people = _people(senders)
    out: dict[str, list[str]] = {"train": [], "eval": []}
    for i, topic in enumerate(NEAR_TOPICS):
        unsaid = [(en, zh) for en, zh in topic.things
                  if not (_terms(en) | _terms(zh)) & vocab]
        if not unsaid:
            continue
        en, zh = unsaid[(turn + i) % len(unsaid)]
        # Named when the conversation has people and the frame's position is even (within
        # each half: positions 0, 1 named; 2, 3 in the first person; ...).
        who = people[(i // 4) % len(people)] if people and (i // 2) % 2 == 0 else None
        split = "train" if i % 2 == 0 else "eval"
        for words, lang, frame in ((en, "en", topic.en), (zh, "zh", topic.zh)):
            out[split].append(_fill(frame, who, words.split("|")[0], lang))
    return out
