"""Build recall_set.json: a held-out recall set no system in the comparison was tuned on.

Eight conversations between two friends (six in English, two in Traditional Chinese), each in
four dated sessions of chit-chat. Into each conversation go twelve facts one speaker states
about their life (a pet's name, a new job, an allergy, a trip …), drawn from fact templates
with random slot values. Each fact has a question asked in other words than the statement
("Which company is Ana going to work for?" for "I accepted the offer, I start at Brightwave
next month"), and the evidence is the one message that states it. Around the facts are
filler turns and distractors: turns that share the question's words but not its answer
("my brother keeps borrowing my charger"), so a system that matches words rather than
meaning ranks them first.

Deterministic: the same seed writes the same bytes. ``python make_recall_set.py`` rewrites
the file next to this script.
"""

from __future__ import annotations

import json
import random
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
SEED = 2718
FACTS_PER_CONVERSATION = 12
SESSIONS = 4
FILLER_PER_SESSION = 18

# (statement, question, distractors): {A} is the speaker who states the fact; slot names in
# braces are filled from SLOTS.
EN_FACTS: list[tuple[str, str, tuple[str, ...]]] = [
    ("We finally adopted a {pet} from the shelter, we named her {pet_name}.",
     "What is the name of the animal {A} brought home from the rescue centre?",
     ("The name of that restaurant escapes me.", "My neighbour's dog barked all night.")),
    ("I accepted the offer, I start as a {job} at {company} next month.",
     "Which company is {A} going to work for?",
     ("Work has been hectic this week.", "Are you going to the company picnic?")),
    ("The doctor confirmed it, I'm allergic to {food}.",
     "What food can {A} not eat because of a medical reaction?",
     ("I can't eat anything before the blood test.", "The food at the fair was average.")),
    ("My brother {sibling} moved to {city} to start his degree.",
     "In which city is {A}'s brother studying?",
     ("My brother keeps borrowing my charger.", "Which city has the better museums?")),
    ("I've started {instrument} lessons on Thursday evenings.",
     "What instrument is {A} learning to play?",
     ("I'm learning to cook on Thursdays too.", "Play that song again, I love it.")),
    ("Sold the old hatchback and bought a {colour} {car}.",
     "What vehicle does {A} drive now?",
     ("Driving in the rain makes me nervous.", "Now that I think of it, I owe you money.")),
    ("For our anniversary we're flying to {country} in {month}.",
     "Where are {A} and their partner travelling to celebrate?",
     ("My partner hates flying.", "Travelling in summer is so expensive.")),
    ("I ran the {race_city} half marathon and finished in {time}.",
     "How long did it take {A} to complete the race?",
     ("How long does it take to get to the station?", "I should complete my tax forms.")),
    ("I'm halfway through {book}, it's about {topic}.",
     "Which book is {A} reading at the moment?",
     ("I'm reading the news less these days.", "The moment I sat down the phone rang.")),
    ("The plumber says fixing the leak under the {room} sink will cost {price}.",
     "How much is the repair going to cost {A}?",
     ("How much did the concert tickets cost?", "The repair shop was closed again.")),
    ("My daughter turns {age} in {month}, we're planning a {theme} party.",
     "What kind of celebration is {A} organising for the child?",
     ("Kind of tired of organising everything myself.", "The child next door is so loud.")),
    ("This spring I planted {plant} along the back fence.",
     "What did {A} grow in the garden?",
     ("The garden centre was packed.", "Did you grow up near the coast?")),
    ("I sprained my {body} playing {sport} on Sunday.",
     "How did {A} get injured?",
     ("Did the parcel get here on Sunday?", "Injury time ruined the match for us.")),
    ("I signed up for {language} classes at the community centre.",
     "Which foreign language is {A} studying?",
     ("The community centre is hosting a quiz.", "Studying late never works for me.")),
    ("The best meal I had this year was the {dish} at {restaurant}.",
     "Where did {A} have the most memorable dinner?",
     ("Dinner at my parents' was long.", "I have a terrible memory for names.")),
    ("My cousin {cousin} just graduated in {field}.",
     "What did {A}'s cousin get a degree in?",
     ("My cousin is coming over for lunch.", "Did you get the message I sent?")),
    ("Every other Saturday I volunteer at the {place}.",
     "Where does {A} help out on weekends?",
     ("Weekends go by so fast.", "Can you help me move the sofa?")),
    ("I switched from coffee to {drink} so I sleep better.",
     "What does {A} have instead of coffee now?",
     ("The coffee machine at work broke.", "I slept badly again.")),
]

ZH_FACTS: list[tuple[str, str, tuple[str, ...]]] = [
    ("我們從收容所領養了一隻{zh_pet}，取名叫{zh_pet_name}。",
     "{A}帶回家的動物叫什麼名字？", ("那家餐廳的名字我忘了。", "鄰居的狗整晚在叫。")),
    ("我接受了那份工作，下個月開始在{zh_company}上班。",
     "{A}之後要去哪一家公司工作？", ("這週工作好忙。", "公司的尾牙你會去嗎？")),
    ("醫生確認了，我對{zh_food}過敏。",
     "{A}因為身體反應不能吃什麼？", ("抽血前不能吃東西。", "夜市的東西普普通通。")),
    ("我弟弟搬去{zh_city}念大學了。",
     "{A}的弟弟在哪個城市讀書？", ("我弟弟一直借我的充電器。", "哪個城市的博物館比較好？")),
    ("我開始每週四晚上學{zh_instrument}。",
     "{A}正在學什麼樂器？", ("我週四也在學做菜。", "再放一次那首歌，我好喜歡。")),
    ("結婚紀念日我們要飛去{zh_country}。",
     "{A}和另一半要去哪裡慶祝？", ("我另一半很怕坐飛機。", "暑假出去玩好貴。")),
    ("水電師傅說修{zh_room}水槽下面的漏水要{zh_price}。",
     "{A}的修理費要多少錢？", ("演唱會的票多少錢？", "修車廠今天又沒開。")),
    ("今年春天我在後院圍籬旁種了{zh_plant}。",
     "{A}在院子裡種了什麼？", ("園藝店人好多。", "你是在海邊長大的嗎？")),
    ("我報名了社區中心的{zh_language}課。",
     "{A}在學哪一種外語？", ("社區中心要辦猜謎活動。", "熬夜讀書對我沒用。")),
    ("我改喝{zh_drink}不喝咖啡了，這樣比較好睡。",
     "{A}現在用什麼代替咖啡？", ("公司的咖啡機壞了。", "我昨晚又沒睡好。")),
]

SLOTS: dict[str, tuple[str, ...]] = {
    "pet": ("cat", "greyhound", "rabbit", "beagle"),
    "pet_name": ("Pepper", "Juniper", "Biscuit", "Olive", "Marlow"),
    "job": ("data analyst", "nurse", "sound engineer", "product designer"),
    "company": ("Brightwave", "Norvale Health", "Kestrel Labs", "Tidewater Audio"),
    "food": ("shellfish", "peanuts", "sesame", "kiwi"),
    "sibling": ("Tom", "Ravi", "Luca", "Ben"),
    "city": ("Edinburgh", "Montreal", "Leiden", "Porto"),
    "instrument": ("cello", "saxophone", "ukulele", "drum"),
    "colour": ("dark green", "silver", "red"),
    "car": ("pickup truck", "electric van", "station wagon"),
    "country": ("Portugal", "Japan", "Iceland", "Peru"),
    "month": ("March", "June", "September", "November"),
    "race_city": ("Valencia", "Bristol", "Lisbon"),
    "time": ("one hour fifty-two", "two hours and five minutes", "one hour forty-eight"),
    "book": ("The Salt Road", "Northern Lights Over Glass", "A Map of Small Hours"),
    "topic": ("a lighthouse keeper", "two sisters running a ferry", "a chess prodigy"),
    "room": ("kitchen", "bathroom", "laundry"),
    "price": ("three hundred dollars", "450 euros", "two hundred pounds"),
    "age": ("six", "nine", "ten"),
    "theme": ("dinosaur", "space", "pirate", "unicorn"),
    "plant": ("lavender", "sunflowers", "raspberry canes", "tomatoes"),
    "body": ("ankle", "wrist", "knee"),
    "sport": ("basketball", "tennis", "five-a-side football"),
    "language": ("Japanese", "Portuguese", "Korean", "Italian"),
    "dish": ("mushroom risotto", "lamb tagine", "miso black cod"),
    "restaurant": ("Casa Lumen", "the Anchor Room", "Hoshi"),
    "cousin": ("Nadia", "Greta", "Omar"),
    "field": ("marine biology", "civil engineering", "architecture"),
    "place": ("animal shelter", "food bank", "public library"),
    "drink": ("rooibos tea", "hot chocolate", "chicory"),
    "zh_pet": ("貓", "兔子", "小狗"),
    "zh_pet_name": ("豆花", "麻糬", "芝麻"),
    "zh_company": ("遠見科技", "綠島設計", "海峰醫療"),
    "zh_food": ("花生", "蝦蟹", "芒果"),
    "zh_city": ("台南", "花蓮", "新竹"),
    "zh_instrument": ("大提琴", "二胡", "爵士鼓"),
    "zh_country": ("葡萄牙", "冰島", "紐西蘭"),
    "zh_room": ("廚房", "浴室"),
    "zh_price": ("三千元", "四千五百元"),
    "zh_plant": ("薰衣草", "向日葵", "番茄"),
    "zh_language": ("西班牙文", "韓文", "法文"),
    "zh_drink": ("麥茶", "熱可可", "花草茶"),
}

EN_FILLER = (
    "How was your week?", "Pretty good, just busy.", "Same here, honestly.",
    "Did you watch the game last night?", "No, I fell asleep early.",
    "The weather has been strange lately.", "I know, sunny one minute and pouring the next.",
    "Any plans for the weekend?", "Nothing much, maybe a walk.", "That sounds nice.",
    "I tried that new bakery on the corner.", "Was it any good?", "The croissants were great.",
    "I need to clean the flat before Friday.", "Let me know if you need a hand.",
    "Thanks, I'll manage.", "Have you heard from the others?", "Not in a while.",
    "We should all meet up soon.", "Definitely, let's pick a date.", "Haha, classic.",
    "That reminds me, I still have your umbrella.", "Keep it, I have two.",
    "My phone battery dies so quickly now.", "Have you tried turning off the location?",
    "Good idea, I'll try that.", "Anyway, how's your mum doing?", "She's well, thanks.",
    "I've been sleeping better this month.", "That's good to hear.",
    "Traffic was awful this morning.", "It always is on Mondays.", "Talk soon!",
    "Sorry, I was in a meeting.", "No worries.", "Sounds like a plan.",
)
ZH_FILLER = (
    "這週過得怎麼樣？", "還不錯，就是有點忙。", "我也是。", "昨晚有看比賽嗎？",
    "沒有，我很早就睡了。", "最近天氣好奇怪。", "對啊，一下出太陽一下下大雨。",
    "週末有什麼計畫嗎？", "沒什麼，可能去散步。", "聽起來不錯。", "我去試了轉角那家麵包店。",
    "好吃嗎？", "可頌很好吃。", "我週五前要打掃房間。", "需要幫忙再跟我說。", "謝謝，我可以的。",
    "最近有其他人的消息嗎？", "好一陣子沒聯絡了。", "我們應該找時間聚聚。", "好啊，來約個時間。",
    "哈哈，果然。", "對了，你的雨傘還在我這裡。", "你留著吧，我有兩把。", "早上塞車好嚴重。",
    "星期一都這樣。", "晚點聊！", "抱歉，剛剛在開會。", "沒關係。",
)
EN_NAMES = (("Ana", "Jonah"), ("Priya", "Sam"), ("Mateo", "Elise"), ("Hana", "Kofi"),
            ("Lena", "Marcus"), ("Theo", "Ines"))
ZH_NAMES = (("怡君", "志明"), ("雅婷", "建宏"))


def fill(template: str, speaker: str, values: dict[str, str]) -> str:
    return template.format(A=speaker, **values)


def conversation(rng: random.Random, number: int, names: tuple[str, str],
                 facts: list[tuple[str, str, tuple[str, ...]]], filler: tuple[str, ...],
                 start: datetime) -> dict[str, Any]:
    a, b = names
    chosen = rng.sample(facts, min(FACTS_PER_CONVERSATION, len(facts)))
    values = [{k: rng.choice(v) for k, v in SLOTS.items()} for _ in chosen]
    # Each fact lands in a random session; its distractors in other sessions.
    placed: list[list[tuple[str, str, int | None]]] = [[] for _ in range(SESSIONS)]
    for i, (statement, _, distractors) in enumerate(chosen):
        speaker = rng.choice(names)
        home = rng.randrange(SESSIONS)
        placed[home].append((speaker, fill(statement, speaker, values[i]), i))
        for text in distractors:
            where = rng.choice([s for s in range(SESSIONS) if s != home])
            placed[where].append((rng.choice(names), text, None))
    turns: list[dict[str, Any]] = []
    evidence: dict[int, str] = {}
    speakers: dict[int, str] = {}
    for s in range(SESSIONS):
        lines = placed[s] + [(names[j % 2], rng.choice(filler), None)
                             for j in range(FILLER_PER_SESSION)]
        rng.shuffle(lines)
        moment = start + timedelta(days=9 * s, hours=rng.randrange(8, 20))
        for t, (speaker, text, fact) in enumerate(lines, 1):
            dia = f"D{s + 1}:{t}"
            turns.append({"dia_id": dia, "speaker": speaker, "text": text,
                          "at": int((moment + timedelta(minutes=t)).timestamp()) * 10**9})
            if fact is not None:
                evidence[fact], speakers[fact] = dia, speaker
    questions = [{"text": fill(q, speakers[i], values[i]), "category": 4,
                  "evidence": [evidence[i]]} for i, (_, q, _) in enumerate(chosen)]
    return {"sample_id": f"held-out-{number}", "speaker_a": a, "speaker_b": b,
            "turns": turns, "questions": questions}


def build() -> list[dict[str, Any]]:
    rng = random.Random(SEED)
    start = datetime(2025, 2, 3, tzinfo=UTC)
    convs = [conversation(rng, n + 1, names, EN_FACTS, EN_FILLER,
                          start + timedelta(days=40 * n))
             for n, names in enumerate(EN_NAMES)]
    convs += [conversation(rng, len(EN_NAMES) + n + 1, names, ZH_FACTS, ZH_FILLER,
                           start + timedelta(days=40 * (len(EN_NAMES) + n)))
              for n, names in enumerate(ZH_NAMES)]
    return convs


def main() -> None:
    convs = build()
    out = HERE / "recall_set.json"
    out.write_text(json.dumps(convs, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    questions = sum(len(c["questions"]) for c in convs)
    turns = sum(len(c["turns"]) for c in convs)
    print(f"{out.name}: {len(convs)} conversations, {turns} messages, {questions} questions")


if __name__ == "__main__":
    main()
