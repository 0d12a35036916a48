"""Assemble bench/data/zh_facts.json, a Traditional Chinese (with code-switched English) retrieval set.

Each conversation is written below as sessions of lines ``code[@label,...]: text``; ``code`` picks the
speaker, a label marks a message that states a fact.  Questions are lines ``lang kind labels | question``
(labels separated by spaces), resolved to "S:M" evidence ids (1-based session, 1-based message).

    python bench/data/make_zh_facts.py           # rewrite zh_facts.json (byte-identical on rerun)
    python bench/data/make_zh_facts.py --show    # also print every question with its evidence texts
"""
import json
import os
import re
import sys
from collections import Counter
from typing import TypedDict

from _shape import Conversation, Message, Question, Session


class Dataset(TypedDict):
    name: str
    description: str
    scope: str
    conversations: list[Conversation]


HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "zh_facts.json")
KINDS = {"para": "paraphrase", "cross": "cross-lingual", "update": "update", "multi": "multi",
         "temp": "temporal", "pref": "preference", "kw": "keyword"}
CONVS: list[Conversation] = []
LABELS: dict[str, dict[str, str]] = {}  # conversation id -> {label: "S:M"}


def conv(cid: str, speakers: dict[str, tuple[str, str]], sessions: list[tuple[str, str]],
         questions: str) -> None:
    """speakers: {code: (role, sender)}; sessions: [(date, body)]; questions: text block."""
    out_sessions: list[Session] = []
    labels: dict[str, str] = {}
    for s_i, (date, body) in enumerate(sessions, 1):
        msgs: list[Message] = []
        for line in body.strip().splitlines():
            line = line.strip()
            if not line:
                continue
            head, text = line.split(": ", 1)
            code, _, labs = head.partition("@")
            role, sender = speakers[code]
            msgs.append({"role": role, "sender": sender, "text": text.strip()})
            for lab in filter(None, labs.split(",")):
                assert lab not in labels, (cid, lab)
                labels[lab] = f"{s_i}:{len(msgs)}"
        out_sessions.append({"date": date, "messages": msgs})
    qs: list[Question] = []
    for line in questions.strip().splitlines():
        line = line.strip()
        if not line:
            continue
        meta, q = line.split(" | ", 1)
        lang, kind, *q_labs = meta.split()
        missing = [lab for lab in q_labs if lab not in labels]
        assert not missing, (cid, missing, q)
        qs.append({"question": q.strip(), "evidence": [labels[lab] for lab in q_labs],
                   "lang": lang, "kind": KINDS[kind]})
    LABELS[cid] = labels
    CONVS.append({"id": cid, "sessions": out_sessions, "questions": qs})


U = "user"
A = "assistant"


# ---------------------------------------------------------------- zh-01 family, birthday party
conv("zh-01", {"u": (U, "美玲"), "a": (A, "Atlas")}, [
("2025-03-02 19:30", """
u: 嗨 Atlas，晚安～
a: 晚安美玲！今天過得還好嗎？
u: 還行，就是有點累，週末都在陪家人
a: 辛苦了，家人聚在一起也是很難得的時光。
u@sis_bday: 跟你說，我妹妹是十月三號生的，今年剛好滿三十歲，我想幫她辦一個大一點的派對
a: 這是很值得紀念的生日！妳有想過要辦成什麼風格嗎？
u@sis_name: 還沒耶，她叫美華，個性超外向，很愛熱鬧
a: 那可以考慮邀請她的朋友們一起，辦成驚喜派對。
u: 好主意，不過現在才三月，還早啦哈哈
a: 哈哈，提早規劃總是比較從容。
u: 今天天氣好熱，不想出門。
a: 才三月就這麼熱，真的有點誇張，記得多喝水。
u: 好的，謝謝，先這樣，晚安
a: 晚安，好好休息！
"""),
("2025-03-16 21:05", """
u: Atlas 我又來了
a: 歡迎回來！今天想聊什麼？
u@allergy: 想問你一些食譜，不過先說，我對花生過敏，很嚴重的那種，吃到會喘不過氣
a: 了解，之後推薦的時候我會避開相關的食材和醬料，也建議隨身帶著醫生開的藥。
u: 嗯嗯，我包包裡都有放
u@dad_cook: 我爸這週末生日，想煮一桌菜給他，他最愛吃紅燒獅子頭
a: 這道菜很適合家庭聚餐！需要我給妳一份步驟嗎？
u: 好啊
a: 準備豬絞肉、荸薺、蔥薑水，絞肉要摔打出筋性，捏成大丸子先煎到表面金黃，再跟大白菜一起燉四十分鐘左右。
u: 看起來不難，謝謝
a: 不客氣，祝伯父生日快樂！
u: 哈哈我會轉達的
u@dad_retire: 對了，他今年六月就要從台電退休了，在那邊做了三十五年
a: 這麼多年真的很不容易，他之後有什麼打算嗎？
u@dad_hobby: 他說要去學書法，還想每天早上去爬象山
a: 很健康的安排！
u: 好了我去備料了，掰
a: 掰掰～
"""),
("2025-04-06 14:20", """
u: 午安
a: 午安美玲，連假過得如何？
u: 回老家掃墓，塞車塞到快崩潰
a: 連假的高速公路真的很可怕，辛苦了。
u@home_town: 我老家在嘉義市區，平常開車兩個半小時，這次開了快五個小時
a: 那真的很累人，下次可以考慮搭高鐵。
u: 對啊，下次不開車了
u@mom_work: 我媽還在老家開早餐店，我們回去都會幫忙煎蘿蔔糕
a: 好溫馨的畫面！不過做早餐的生意應該很早就要起床吧。
u: 四點半就要起來，我媽超猛
a: 真的很辛苦，令人佩服。
u@sis_wish: 美華那天也有回來，她偷偷跟我說她比較想要一台拍立得當禮物，對派對沒那麼在意
a: 這樣禮物的方向就清楚多了！
u: 可是我還是想辦派對 XD
a: 兩個都準備也可以呀。
u: 哈哈你說得對
a: 還有什麼需要幫忙的嗎？
u: 沒了，謝謝你
a: 不客氣！
"""),
("2025-05-11 10:00", """
u: 早安，今天母親節
a: 早安！有要幫媽媽慶祝嗎？
u@mom_gift: 我訂了一個芋泥蛋糕，我媽對芋頭完全沒有抵抗力，芋圓、芋頭酥她都愛
a: 太貼心了，她一定會很開心。
u@mom_sugar: 只是她上次健康檢查血糖偏高，醫生要她控制甜食
a: 那蛋糕可以選小一點的尺寸，或問問看店家有沒有減糖的版本。
u: 嗯我問一下店家
a: 好主意。
u@party_v1: 另外，美華的派對我決定訂在信義區一間叫「小島」的餐酒館，可以包場
a: 包場很棒！大概會來多少人？
u@party_guests: 大概二十五個吧，她大學同學加上公司同事
a: 這個規模蠻適合包場的。
u: 嗯，不過要先付訂金
a: 記得確認一下取消政策喔。
u: 好，了解
a: 還有其他事嗎？
u: 沒有了，去吃早午餐囉
a: 享受美好的早午餐～
"""),
("2025-07-20 20:40", """
u: 好久不見 Atlas
a: 好久不見！最近忙嗎？
u: 超忙，公司在趕年中報告
a: 辛苦了，注意休息。
u@dad_retired: 我爸上個月正式退休了，歡送會上他哭得唏哩嘩啦
a: 能感受到那份情感，恭喜伯父展開新的人生階段。
u@dad_new: 結果他沒去學寫字，反而報名了社區大學的烏克麗麗課，哈哈
a: 計畫趕不上變化，不過音樂也很療癒。
u: 他每天在家練，我媽快被吵死了
a: 哈哈，家裡多了一點音樂聲也不錯。
u: 今天好熱喔，冷氣開一整天
a: 夏天就是這樣，電費要注意一下哈哈。
u: 對啊，這個月電費一定爆
a: 可以把冷氣設定在 26 度再搭配電風扇，會省一些。
u: 好，謝謝建議
a: 不客氣！
"""),
("2025-09-14 16:10", """
u: Atlas，派對的事有變
a: 怎麼了？
u@party_v2: 那間餐酒館九月底要裝修停業，所以美華的生日派對改在我家頂樓辦，我們自己佈置
a: 這樣反而更有家的感覺，需要佈置建議嗎？
u@sis_color: 要！她最喜歡薰衣草紫，我想整個都用那個色系
a: 可以用同色系的氣球和桌布，再搭一些乾燥花，應該會很漂亮。
u: 然後食物我打算叫外燴
a: 外燴省事很多。
u: 不過菜單你要幫我盯著，你知道我的狀況
a: 當然，我會提醒妳跟外燴確認每道菜的食材。
u@guests_v2: 因為場地變小，邀請名單縮到十五個人
a: 那頂樓的空間應該剛剛好。
u@gift_bought: 禮物也搞定了，買了一台 Instax mini 12，她應該會尖叫
a: 她一定會很開心！
u: 希望啦哈哈
a: 一定會的。
u: OK 那先這樣
a: 好的，有需要隨時找我！
"""),
], """
zh para sis_bday | 美玲的妹妹哪天過生日？
en cross sis_bday | When was Meiling's sister born?
en kw sis_bday | How old is 美華 turning this year?
zh para sis_name | 美玲妹妹叫什麼名字？
en cross allergy | Is there any food Meiling must stay away from for medical reasons?
zh para allergy | 幫我挑零食的時候，要注意我哪一種東西絕對不能吃？
zh pref dad_cook | 美玲的爸爸最喜歡的料理是哪一道？
en temp dad_retired | In which month did Meiling's father finally leave his job?
zh kw dad_retire | 美玲的爸爸在台電服務了多少年？
zh update dad_new | 美玲的爸爸退休之後實際上去學了什麼？
en cross dad_hobby | What did Meiling's dad originally say he would do once he stopped working?
zh para home_town | 美玲是哪裡人？老家在哪？
en cross mom_work | What kind of business does Meiling's mother run?
zh pref mom_gift | 美玲媽媽偏愛哪一種口味的點心？
en cross mom_sugar | What health issue did Meiling's mom's checkup reveal?
zh update party_v2 | 美華的慶生會最後辦在哪？
en cross party_v1 | Which venue did Meiling book first for the birthday party?
en update guests_v2 | How many people are on the party guest list now?
zh multi sis_wish gift_bought | 美華心裡想要的生日禮物，美玲最後買了哪一款？
zh pref sis_color | 美華喜歡什麼顏色？
en kw gift_bought | Which Instax camera did Meiling get for her sister?
zh temp party_v2 | 九月那次聊天，派對計畫為什麼臨時改變？
zh kw allergy | 美玲對花生過敏的症狀有多嚴重？
zh para mom_work | 美玲回老家的時候會幫媽媽做什麼？
""")


# ---------------------------------------------------------------- zh-02 pets: the cat Mochi
conv("zh-02", {"u": (U, "子豪"), "a": (A, "Atlas")}, [
("2024-08-04 22:15", """
u: 哈囉
a: 哈囉子豪，晚上好！
u: 睡不著，來找你聊天哈哈
a: 沒問題，我隨時都在。想聊什麼？
u@cat_intro: 聊我家的貓好了，牠叫麻糬，英文名字叫 Mochi，是一隻三歲的橘貓，公的
a: 好可愛的名字！橘貓通常都很親人。
u@cat_origin: 牠是我前年從台北市動物之家領養的，那時候超瘦小
a: 領養真的很棒，謝謝你給牠一個家。
u: 現在完全看不出來以前瘦哈哈
a: 看來牠過得很幸福。
u@boss: Honestly, Mochi is the boss of the house. 我只是幫牠開罐頭的
a: 哈哈，這就是養貓人的日常。
u@cat_food1: 牠現在吃 Orijen 的雞肉乾乾，一天兩餐，早上七點晚上七點
a: 定時定量很好，可以幫助控制體重。
u: 好，我要試著睡了
a: 晚安，祝好夢！
"""),
("2024-08-25 13:40", """
u: Atlas，問你喔
a: 請說！
u@vet_visit: 今天帶麻糬去中和的安心動物醫院打預防針，林醫師說牠 6.2 公斤，The vet said he's borderline obese lol
a: 以成年公貓來說確實偏重了一點，可以跟醫師討論減重計畫。
u: 醫生叫我減少零食，可是牠一直叫
a: 可以改用少量的凍乾當獎勵，或是用玩具轉移注意力。
u: 說到玩具
u@cat_toy: 牠最愛那種有羽毛的逗貓棒，雷射筆反而完全不理
a: 很多貓都喜歡能實際抓到的玩具，羽毛逗貓棒很適合消耗體力。
u: 好，我每天陪牠玩十五分鐘
a: 這是很好的開始。
u: 今天天氣好熱，不想出門。結果還是出門了哈哈
a: 辛苦了，外面真的很熱，回家記得補充水分。
u: 嗯嗯，謝啦
a: 不客氣！
"""),
("2024-09-15 20:30", """
u: 晚安
a: 晚安子豪，麻糬最近好嗎？
u: 不太好，牠一直抓耳朵，下巴還掉毛
a: 聽起來可能是皮膚問題，有帶去看醫生嗎？
u@cat_allergy: 有，林醫師懷疑是食物過敏，驗了之後發現牠對雞肉過敏
a: 原來如此，這樣飼料就要換掉了。
u@cat_food2: 對，已經換成同一個牌子的鮭魚配方，完全不含禽肉
a: 很好的調整，通常幾週後皮膚就會慢慢改善。
u: 希望啦，看牠抓得好可憐
a: 也可以請醫師開止癢的藥膏先緩解。
u: 有拿了
a: 那就好。
u: OK 謝謝你聽我碎念
a: 一點都不碎念，這都很重要。
"""),
("2024-10-06 11:00", """
u: 早
a: 早安！今天是週末呢。
u@trip: 嗯嗯，我下下週要去首爾玩五天，在想麻糬怎麼辦
a: 可以找寵物保母到府，或是請信任的親友幫忙。
u@sitter: 我姊子涵說她可以每天下班來餵牠、清貓砂
a: 太好了，有家人幫忙最放心。
u: 她也養過貓，應該沒問題
a: 記得把飼料份量和醫院電話寫給她。
u: 好主意
u: 對了，Seoul 有推薦的地方嗎？
a: 可以去北村韓屋村、益善洞的小巷，還有望遠市場吃小吃。
u: 好像不錯，我記一下
a: 祝旅途愉快！
u: 謝啦
a: 不客氣～
"""),
("2024-10-27 21:50", """
u: 我回來了！
a: 歡迎回來，首爾好玩嗎？
u: 超好玩，吃了好多炸雞
a: 哈哈，韓式炸雞真的是必吃。
u: 麻糬看到我超冷淡，假裝不認識我
a: 貓咪鬧脾氣是正常的，過幾天就會黏回來了。
u@second_cat: 然後跟你說一個大消息，我又領養了一隻小貓，叫湯圓，白色的母貓，才三個月大
a: 恭喜！家裡更熱鬧了。兩隻貓記得先隔離一段時間再慢慢讓牠們認識。
u: 對，現在湯圓先住在書房
a: 很好的做法。
u: 麻糬在門外一直哈氣哈哈
a: 這很正常，給牠們一點時間。
u: 好，了解
a: 有問題隨時問我。
"""),
("2024-11-24 15:25", """
u: Atlas～
a: 嗨子豪！兩隻貓處得如何？
u: 現在已經會一起睡了，超療癒
a: 太好了，磨合得很順利。
u@weight2: 今天回診，麻糬瘦到 5.4 公斤了！林醫師說很標準
a: 太棒了，你的努力有成果。
u: 都是逗貓棒的功勞哈哈
a: 還有你每天陪牠玩的堅持。
u@tangyuan_vax: 湯圓也打完第二劑疫苗了，下個月要結紮
a: 結紮前記得問醫師術前要禁食多久。
u: 好，我會問
u: 天氣變冷了，要幫牠們買電熱毯嗎？
a: 可以選寵物專用、有溫控的款式比較安全。
u: OK 謝謝
a: 不客氣，祝兩隻小傢伙健康！
"""),
], """
zh para cat_intro | 子豪養的貓是什麼品種、幾歲？
en kw cat_intro | What is Mochi's Chinese name?
en cross cat_origin | Where did Zihao adopt his first cat from?
zh para cat_origin | 麻糬是在哪裡被帶回家的？
zh kw vet_visit | 麻糬平常去哪一間動物醫院看診？
en multi cat_allergy cat_food2 | What is the cat allergic to and what food did Zihao switch to?
zh para cat_allergy | 為什麼麻糬一直抓耳朵、下巴掉毛？
en update cat_food2 | What does the orange cat eat these days?
zh para cat_food1 | 麻糬一開始吃的乾糧是什麼口味、一天餵幾次？
en update weight2 | How much does Mochi weigh now?
zh cross vet_visit | 醫師第一次說麻糬太胖的時候，牠有多重？
zh pref cat_toy | 麻糬最喜歡玩什麼？
zh pref cat_toy | 麻糬對哪種玩具完全沒興趣？
zh temp trip | 子豪十月去了哪個國家旅行？
en cross sitter | Who looked after the cat while Zihao was abroad?
zh multi trip sitter | 子豪出國那幾天，誰負責照顧麻糬？他去了幾天？
en cross second_cat | Describe the second cat Zihao brought home.
zh kw second_cat | 湯圓是公的還是母的？
en temp tangyuan_vax | When is the kitten scheduled to be spayed?
zh cross boss | 子豪說家裡真正作主的是誰？
zh kw sitter | 子涵答應幫子豪做哪些事？
zh para tangyuan_vax | 湯圓的疫苗打到第幾劑了？
""")


# ---------------------------------------------------------------- zh-03 two friends plan a Hualien trip
conv("zh-03", {"p": (U, "佩君"), "x": (U, "小安")}, [
("2024-04-28 21:10", """
p: 欸小安，在嗎
x: 在啊，剛洗完澡
p: 端午連假要不要去哪裡玩？
x: 好啊！我超需要放假
p@plan: 我想去花蓮，三天兩夜，去七星潭看海、順便去太魯閣走走
x: 讚！我好幾年沒去花蓮了
x: 不過太魯閣現在可以進去嗎？
p@taroko: 我查了一下，裡面很多步道還在封閉，大概只能在入口附近看看
x: 好吧，那就當作順便
p@leave: 我要先跟護理長排假，我們單位連假很難請
x: 加油，排到再跟我說
p: 好～
x: 我先去吹頭髮了，晚安
p: 晚安！
"""),
("2024-05-12 20:00", """
x: 假有排到嗎？
p@leave_days: 排到了！六月八號到十號
x: 太好了！
x: 那交通怎麼辦，搭火車還是飛機？
p@plane: 我不想搭飛機，每次降落耳朵都痛到受不了
x: 那就火車吧，普悠瑪很快
p@train1: 好，那就搭普悠瑪，台北出發大概兩個小時多一點
x@window: OK 但我要先講，我一定要靠窗，我要看海
p: 哈哈知道啦，每次都這樣
x: 看海是火車的精華欸
p: 好好好
x: 票什麼時候開賣？
p: 兩週前的半夜十二點
x: 那要設鬧鐘搶票了
p: 嗯嗯
"""),
("2024-05-26 00:20", """
p: 完蛋
x: 怎麼了？？
p: 票秒殺，全部都沒了
x: 不會吧，連站票都沒有？
p: 都沒了，我刷了二十分鐘
x: 那怎麼辦
p@car: 我想說乾脆租車開蘇花改過去，我有駕照，你可以幫我看導航
x: 可以啊，這樣到了花蓮也比較好移動
p@rent_pick: 對，租車公司我找好了，在台北車站取車
x: 好，你開車我負責放音樂哈哈
p@bnb: 住的我也訂了，七星潭旁邊一間民宿，一晚兩千八，兩個人分
x: 好便宜！
p: 房間有看到海喔
x: 太讚了
p: 好，睡了，明天還要上班
x: 晚安
"""),
("2024-06-03 19:45", """
x: 跟你說一件事
p: 什麼事？
x@bf: 阿哲問能不能跟我們一起去花蓮，他可以跟你輪流開車
p: 阿哲是你新男友？
x: 對啦，交往一個多月了
p: 哈哈恭喜！可以啊，多一個人開車我輕鬆很多
x: 讚，那民宿要加人嗎？
p: 我問一下老闆
p@bnb2: 問好了，換成三人房，一晚三千六
x: 好
p@spicy: 還有我先講，吃飯不要找辣的，我完全不能吃辣，一點點都會胃痛
x: 知道，阿哲也不太吃辣
p: 那就好
x: 今天好悶熱，感覺要下雨了
p: 對啊，剛才打雷了
x: 希望出去玩那幾天不要下雨
p: 拜託天氣要好
"""),
("2024-06-12 22:30", """
p: 回到家了～累死
x: 我也是，腳好痠
p: 不過真的好好玩
x: 超好玩！
p@sunrise: 我覺得整趟最棒的是第二天早上在清水斷崖看日出，很值得早起
x: 同意，那個顏色超美
x@sunglasses: 可是我把墨鏡忘在民宿了啦，Ray-Ban 的耶
p: 哈哈你打給老闆請他寄回來
x: 打了，他說明天幫我寄
p: 老闆人很好
x: 對啊
x@bf_drive: 阿哲說下次還要一起去，他說開蘇花改很過癮
p: 他開比較多，辛苦他了
x: 哈哈他很樂意
p: 好啦，我去洗澡了
x: 晚安～
"""),
("2024-07-21 14:05", """
x: 在幹嘛
p: 在家吹冷氣，今天天氣好熱，不想出門。
x: 我也是，外面三十六度
p: 欸下一趟要去哪？
p@next: 我想九月去綠島浮潛，聽說海超清澈
x: 好啊，但我不會游泳
p: 穿救生衣就好了啦
x@swim: 那我要先去學游泳，我報名了社區泳池的成人班，每週六早上
p: 哇認真
x: 不想在海裡丟臉哈哈
p: 哈哈加油
x: 阿哲也要去嗎？
p: 當然，他是司機啊
x: 哈哈好
"""),
], """
zh para plan | 佩君最初規劃的花蓮行程是幾天？想去哪些景點？
en cross plan | How long was the Hualien trip supposed to last?
zh kw taroko | 太魯閣那時候可以進去健行嗎？
zh para leave | 佩君要向誰請假？
zh temp leave_days | 佩君請到的是哪幾天的假？
en para plane | Why doesn't Peijun like flying?
zh update car | 她們最後怎麼去花蓮的？
en update car | Since the train tickets sold out, how did they get to Hualien in the end?
zh para train1 | 一開始打算搭哪一種列車去花蓮？
zh pref window | 小安坐車的時候對座位有什麼堅持？
en pref window | What kind of seat does Xiao An always insist on?
zh update bnb2 | 加了一個人之後，民宿一晚要多少錢？
en kw bnb | How much did the B&B near 七星潭 cost per night at first?
zh para bf | 花蓮之行後來多了哪位同伴？
en multi bf bf_drive | Who was Xiao An's boyfriend and what did he think of driving on the Suhua highway?
zh pref spicy | 佩君吃東西有什麼限制？
en cross spicy | What happens if Peijun eats spicy food?
en temp sunrise | What was the highlight of the trip, and on which morning was it?
zh para sunglasses | 小安旅途中把什麼東西弄丟了？是哪個牌子？
zh temp next | 佩君九月想去哪裡玩什麼？
en cross swim | What did Xiao An sign up for before the snorkeling trip?
zh kw rent_pick | 佩君租的車要去哪裡取？
zh kw swim | 小安報名的游泳課是每週什麼時候？
""")


# ---------------------------------------------------------------- zh-04 work: deployments, bugs, deadlines
conv("zh-04", {"u": (U, "Kevin"), "a": (A, "Atlas")}, [
("2025-01-06 09:20", """
u: 早安 Atlas，新年第一個上班日 orz
a: 早安 Kevin！收假症候群嗎？
u: 超嚴重，Slack 有兩百則未讀
a: 先處理有 mention 你的，其他的慢慢看就好。
u@job: 好。先跟你介紹一下我的工作，我在內湖一間做 payment 的 fintech 新創叫 PayNest，當 backend engineer
a: 了解，金流系統的後端，責任應該不小。
u@stack: 對，我們的 stack 是 FastAPI 加 PostgreSQL，部署在 GKE 上，用 Argo CD 做 GitOps
a: 很現代的架構。有什麼需要我幫忙的地方嗎？
u@deadline1: 這季最大的事是 v2 payment API，Sandy 說三月十五號一定要上線
a: Sandy 是你的主管嗎？
u@lead: 對，她是我們的 tech lead，人很好但 deadline 很硬
a: 那我們可以一起拆一下工作，看時程是否合理。
u: 好，晚點再來找你，先去 standup
a: 好的，加油！
"""),
("2025-01-20 22:40", """
u: 救命，production 出事了
a: 發生什麼事？先冷靜說一下狀況。
u@bug: 有客戶被重複扣款，同一筆訂單扣了兩次，客服電話被打爆
a: 這很嚴重。有沒有看 log 找到是哪一段造成的？
u@bug_cause: 找到了，是 webhook retry 的時候我們沒有檢查 idempotency key，第三方重送就又扣一次
a: 這是金流很常見的坑。建議在處理扣款前先用唯一的 key 做去重。
u@bug_fix: 我用 Redis 存 idempotency key，TTL 設 24 小時，已經 hotfix 上去了
a: 很快的處理！之後記得補上 integration test，還有寫 postmortem。
u: 對，Sandy 叫我禮拜三前交 postmortem
a: 可以用時間軸、影響範圍、根因、改善措施這幾段來寫。
u: 好，謝啦，今天真的嚇死
a: 辛苦了，處理得很好，早點休息。
u: 嗯，晚安
a: 晚安。
"""),
("2025-02-10 12:30", """
u: 午休時間來聊一下
a: 好啊，吃飯了嗎？
u: 在吃便當，雞腿飯
a: 經典選擇哈哈。
u@oncall: 跟你抱怨一下，從這個月開始我們要輪 on-call，每四週輪到我一次
a: on-call 的壓力不小，有 runbook 嗎？
u@runbook: 有，但很爛，我打算重寫
a: 重寫 runbook 對整個團隊都有幫助。
u@editor: 對了，我最近把 VS Code 換成 Neovim 了，I'm never going back.
a: 哈哈，Neovim 的 LSP 整合現在很成熟，用得順手就好。
u: 就是 config 一直在調，有點上癮
a: 這是 Neovim 使用者的必經之路。
u: XD 好啦我要回去寫 code 了
a: 加油！
"""),
("2025-02-24 20:15", """
u: Atlas 我有壞消息
a: 怎麼了？
u@deadline2: v2 上線延期了，因為資安稽核要重跑滲透測試，新的日期是三月二十九號
a: 雖然延期，但多了兩週緩衝，也許是好事。
u: 對啊，老實說原本的時程根本不可能
a: 現在可以把測試補齊。
u@rust: 然後我週末開始學 Rust，想說之後可以拿來寫一些 CLI 工具
a: 不錯的選擇，可以從《The Rust Programming Language》這本官方書開始。
u: 我就是在看那本，borrow checker 好難
a: 大家都卡過這關，多寫幾次就會有感覺。
u: 希望啦
u: 今天超冷，10 度，我不想出門
a: 寒流來了，記得保暖。
u: 好，謝謝
a: 不客氣！
"""),
("2025-03-10 23:05", """
u: 還在加班...
a: 辛苦了，在忙 v2 嗎？
u: 對，在修 load test 發現的問題
a: 找到瓶頸了嗎？
u@perf: 找到了，PostgreSQL 有一個 query 沒吃到 index，加了 composite index 之後 p99 從 800ms 降到 120ms
a: 改善非常明顯！
u: 超爽，Sandy 說要請我喝咖啡
a: 哈哈，這杯咖啡是你應得的。
u@coffee: 我都喝燕麥奶拿鐵，我乳糖不耐
a: 燕麥奶拿鐵很好喝，也比較不會不舒服。
u: 好啦我要睡了，明天還要 deploy
a: 晚安，deploy 順利！
"""),
("2025-03-31 19:00", """
u: 報告！v2 上線了！
a: 恭喜！過程順利嗎？
u@launch: 週六凌晨兩點做 canary，先放 5% 流量，沒問題再全開，零 downtime
a: 非常專業的做法，團隊一定很開心。
u: 對啊，大家開香檳
a: 你們值得慶祝！
u@offer: 然後偷偷跟你說，我拿到 LINE 的 offer 了，是做 ads platform 的
a: 恭喜！你有打算接受嗎？
u: 還在考慮，薪水多三成
a: 除了薪水，也可以考慮團隊、成長機會和工作內容。
u: 嗯，我再想想
a: 有需要可以一起列優缺點。
u: 好，謝謝
a: 不客氣。
"""),
("2025-04-14 21:30", """
u: Atlas，我決定了
a: 你決定了什麼？
u@accept: 我接受 LINE 了，五月十二號報到，PayNest 這邊做到五月初
a: 恭喜開啟新的篇章！交接要準備什麼嗎？
u: 要寫交接文件，還有 on-call 要交給別人
a: 可以把 runbook 和系統架構圖一起整理給接手的人。
u: 對，剛好我重寫過 runbook 哈哈
a: 這就是提前準備的好處。
u: Sandy 有點難過，但她說支持我
a: 有一個支持你的主管很難得。
u: 真的，她教了我很多
a: 保持聯繫，以後也許還會合作。
u: 嗯嗯，先這樣，掰
a: 掰掰，加油！
"""),
], """
en cross job | What kind of company did Kevin work for in early 2025, and where was it?
zh kw job | PayNest 是做什麼的公司？
zh para stack | Kevin 他們團隊的後端用什麼框架和資料庫？
en cross stack | Which cloud platform and deployment tool did his team use?
zh update deadline2 | v2 付款 API 最後預定哪天上線？
en update deadline2 | Why was the launch of the new API pushed back?
zh kw lead | Kevin 的 tech lead 叫什麼名字？
en cross bug | What production incident happened in January?
zh multi bug_cause bug_fix | 重複扣款的根本原因是什麼？後來怎麼修的？
en kw bug_fix | How long does the deduplication key live in Redis?
zh para oncall | Kevin 多久要值班一次？
zh cross editor | Kevin 現在寫程式用哪個編輯器？
en pref editor | Which editor does Kevin prefer now?
zh temp rust | 二月底 Kevin 開始在週末自學什麼程式語言？
en cross perf | How much did the latency drop after the database fix?
zh pref coffee | Kevin 喝咖啡有什麼習慣？為什麼？
en cross coffee | Is Kevin lactose intolerant?
zh para launch | 新版 API 是怎麼上線的？有停機嗎？
en kw offer | What team at LINE offered Kevin a job?
zh update accept | Kevin 接下來要去哪家公司上班？哪天報到？
en temp accept | When does Kevin start at his new job?
zh kw runbook | Kevin 對團隊那份 runbook 有什麼打算？
zh para perf | 壓力測試抓到的效能瓶頸最後怎麼解決？
""")


# ---------------------------------------------------------------- zh-05 health: running, knee, sleep
conv("zh-05", {"u": (U, "雅婷"), "a": (A, "小助")}, [
("2024-09-01 07:10", """
u: 早安小助
a: 早安雅婷！這麼早起？
u@start_run: 對啊，我決定開始跑步了，今天早上在大安森林公園跑了三公里
a: 很棒的開始！感覺如何？
u: 喘到快往生哈哈
a: 一開始都會這樣，可以用跑走交替的方式慢慢增加距離。
u@race1: 我報名了十二月八號的一場路跑，10K 組，給自己一個目標
a: 有目標很好，大約三個月的時間，循序漸進是做得到的。
u: 希望不要半途而廢
a: 可以每週固定三天，記錄下來會比較有動力。
u: 好，我下載了 Strava
a: 很好用的 app！
u: 好，我要去洗澡上班了
a: 祝妳有美好的一天！
"""),
("2024-09-22 21:45", """
u: 小助，想問健康的事
a: 請說，我盡量幫忙。
u@bp: 公司健檢報告出來，我的血壓是 135/88，護理師說偏高要注意
a: 這個數字屬於偏高的範圍，可以先從減鹽、規律運動和睡眠開始調整，也建議追蹤一段時間。
u@family_bp: 我爸有高血壓，吃藥吃十幾年了，所以我有點擔心
a: 有家族史的話更要留意，可以在家買一台血壓計每天量。
u: 好，我會去買
u@vitd: 然後維他命 D 也很低，只有 18，醫生叫我每天吃 2000 IU
a: 這在台灣上班族很常見，補充之外也可以多曬點太陽。
u: 我每天都在辦公室，根本沒曬到
a: 午休出去走個十分鐘也會有幫助。
u: 了解
a: 還有其他想問的嗎？
u: 沒有了，謝謝
a: 不客氣，早點休息！
"""),
("2024-10-13 18:30", """
u: 嗚嗚
a: 怎麼了？
u@knee: 我右膝外側好痛，去看復健科，醫生說是髂脛束症候群，要停跑三週
a: 好可惜，不過現在好好休息，之後才能跑得更久。
u@physio: 還要每週去做兩次物理治療，My physio said no running until the pain is completely gone.
a: 聽治療師的準沒錯，可以請他教妳一些伸展和臀部肌力訓練。
u: 有教了，要用滾筒放鬆
a: 滾筒很有效，不過一開始會很痛。
u: 痛到我尖叫哈哈
a: 哈哈，撐過就會舒服很多。
u: 比賽怎麼辦啦
a: 先看恢復狀況，真的不行也可以改組別或明年再戰。
u: 嗯...
a: 身體最重要。
"""),
("2024-10-27 22:50", """
u: 睡不著
a: 現在快十一點了，最近常失眠嗎？
u@sleep: 對，我常常躺到一點多才睡著，早上七點要起床
a: 睡不到六小時對身體負擔很大。睡前一小時可以試著不看手機。
u: 很難欸，一直想滑
a: 可以把手機放在房間外面充電。
u@melatonin: 我同事推薦我吃褪黑激素，可是我問了醫生，他說不建議我長期吃
a: 聽醫生的建議比較安全，先從作息和環境調整開始。
u@work: 而且我是會計，最近在準備年底結帳，壓力很大
a: 壓力大也會影響睡眠，可以睡前做點呼吸練習。
u: 好，我試試看
a: 晚安，希望今晚能好睡一點。
u: 晚安
"""),
("2024-11-17 12:10", """
u: 午安
a: 午安！膝蓋好點了嗎？
u: 好很多了，上週開始慢慢跑
a: 太好了，記得不要一下子加量。
u@gym1: 對了，我本來在 World Gym 有辦會員，但他們一直推銷私人教練課，I'm so done with their sales pitch.
a: 確實有些健身房的推銷很煩人。
u@gym2: 所以我退掉了，改去家附近的大安運動中心，按次計費，便宜又沒人推銷
a: 很聰明的選擇，運動中心的設備也很齊全。
u: 對啊，游泳池也可以用
a: 游泳對膝蓋比較沒有負擔，可以當作交叉訓練。
u: 好，我週三去游
u@drink: 另外我也在戒手搖，從每天一杯降到一週兩杯，而且都點半糖去冰的珍奶
a: 這個進步很大！
u: 好難哈哈
a: 慢慢來，妳做得很好。
"""),
("2024-12-01 20:00", """
u: 小助，下週就要比賽了
a: 準備得如何？
u@race2: 我想了很久，決定從 10K 改成 5K 組，膝蓋剛好，不想冒險
a: 很成熟的決定，安全完賽最重要。
u: 嗯，有點不甘心但沒辦法
a: 明年還有很多機會。
u: 今天天氣好冷，不想出門
a: 冬天到了，保暖很重要。
u: 對啊
a: 比賽前一晚記得早點睡。
u: 好，謝謝
a: 加油！
"""),
("2024-12-08 13:40", """
u: 我完賽了！！！
a: 恭喜妳！感覺怎麼樣？
u@finish: 5K 跑了 31 分 20 秒，膝蓋完全沒痛
a: 太棒了！從三個月前跑三公里就很喘，到現在，進步超多。
u: 哈哈我自己都不敢相信
a: 這是妳每一次練習累積來的。
u@next_goal: 明年我想挑戰半馬，但這次要先練肌力，不要再受傷了
a: 很好的規劃，可以每週加兩次肌力訓練。
u: 好！
u: 現在要去吃火鍋慶祝
a: 好好享受，妳值得！
u: 謝謝小助～
a: 不客氣！
"""),
], """
zh para start_run | 雅婷第一天練跑的地點和距離是？
zh kw start_run | 雅婷第一次去大安森林公園跑了幾公里？
zh para race1 | 雅婷原本報名的比賽是什麼距離？
en update race2 | Which distance did Yating finally enter in the December race?
zh temp race1 | 那場路跑是哪一天舉行？
zh para bp | 雅婷健檢時測出的血壓數字是多少？
en multi bp family_bp | Why is Yating worried about her blood pressure reading?
zh kw vitd | 她的維他命 D 檢查結果多少？醫師怎麼建議？
en cross vitd | How much vitamin D does the doctor want Yating to take each day?
zh para knee | 雅婷為什麼要暫停跑步？
en cross knee | Which knee hurt, and what was the diagnosis?
zh cross physio | 復健的老師說雅婷要到什麼時候才能再跑？
zh para sleep | 雅婷平常大概幾點才睡得著？
en cross melatonin | What did the doctor say about taking melatonin?
zh kw work | 雅婷的職業是什麼？為什麼年底特別忙？
en update gym2 | Where does Yating work out now?
zh cross gym1 | 雅婷為什麼不想再待在之前那間健身房？
zh pref drink | 雅婷點珍奶的時候習慣怎麼點？
en pref drink | How often does Yating allow herself a bubble tea now?
en temp finish | What was Yating's time in the race on December 8?
zh temp next_goal | 完賽之後，雅婷說明年的目標是什麼？
zh kw gym2 | 大安運動中心怎麼收費？
zh para finish | 比賽當天雅婷的膝蓋有沒有不舒服？
""")


# ---------------------------------------------------------------- zh-06 food preferences, vegetarian
conv("zh-06", {"u": (U, "建宏"), "a": (A, "Atlas")}, [
("2025-04-05 11:30", """
u: Atlas 午安，想請你幫我想這週的菜單
a: 午安建宏！當然可以，有什麼飲食上的條件嗎？
u@veg1: 我吃蛋奶素，已經五年了，主要是為了環保
a: 了解，蛋奶素的選擇其實很多，我會以這個為前提來規劃。
u@cilantro: 還有，千萬不要放香菜。Honestly, cilantro tastes like soap to me.
a: 哈哈，這是基因造成的，很多人都有同樣的感覺。我會避開。
u@wife: 我老婆淑芬吃葷，她最愛牛肉麵，所以有時候要煮兩種
a: 那可以做一些能分開加料的菜，例如同一鍋湯底，她加肉，你加豆腐。
u: 這招不錯
a: 週一可以做番茄豆腐湯麵，週三做咖哩，週五做烤蔬菜千層麵。
u: 千層麵好，我喜歡起司
a: 那就多放一點莫札瑞拉。
u: 好，謝謝
a: 不客氣！
"""),
("2025-04-26 16:00", """
u: 哈囉
a: 哈囉！今天在忙什麼？
u@sourdough: 在家烤酸種麵包，我養了一罐酵種，取名叫「小麥」，已經養半年了
a: 好可愛的名字！酸種很需要耐心，半年的酵種應該很穩定了。
u: 對啊，每天都要餵牠
a: 就像養寵物一樣哈哈。
u: 今天的成品氣孔很漂亮，很開心
a: 恭喜！
u@city: 另外我想找台中西屯附近的素食餐廳，週末想跟朋友吃
a: 可以找一些標榜蔬食的早午餐店或義式餐廳，西屯那邊選擇不少。
u@fav_rest: 我目前最常去的是一間叫「蔬慕」的蔬食火鍋，湯頭很清爽
a: 火鍋是蔬食朋友聚餐的好選擇。
u: 嗯嗯
a: 如果想換換口味，可以試試蔬食印度料理，香料很豐富。
u: 好，我查查看
a: 祝聚餐愉快！
"""),
("2025-05-17 20:20", """
u: Atlas，問你
a: 請說！
u@anniv: 我跟淑芬的結婚紀念日是六月十八號，今年是第七年，想訂一間好一點的餐廳
a: 恭喜！需要同時符合你們兩個人的飲食喔。
u: 對，這就是難的地方
a: 可以找有提供素食套餐的法式或日式餐廳，很多高級餐廳都可以事先預約。
u: 好主意
u@tea: 還有我不喝咖啡，餐後飲料我都點烏龍茶
a: 了解，很多餐廳也有茶類選項。
u: 今天好熱喔，一直流汗
a: 五月就這麼熱，要多喝水。
u: 好，謝謝
a: 不客氣！
"""),
("2025-06-14 10:10", """
u: 早
a: 早安建宏！
u@booked: 紀念日的餐廳訂好了，是一間叫 Terroir 的法式餐廳，他們可以幫我做蛋奶素的套餐
a: 太好了，法式料理的素食套餐通常很有巧思。
u: 很期待
a: 淑芬一定會很開心。
u@gift_wife: 我還買了一條項鍊給她，是她上次在百貨公司看了很久的那條
a: 超用心！
u: 哈哈希望她會喜歡
a: 她一定會的。
u: 那我先去運動了
a: 好，運動愉快！
"""),
("2025-07-12 19:30", """
u: 跟你說一個改變
a: 什麼改變呢？
u@vegan: 我上個月開始改吃全素了，蛋跟奶製品都不碰了。I've been vegan for a month now and I feel great.
a: 恭喜你的新嘗試！之後規劃菜單時我會避開蛋跟乳製品。
u: 謝啦
u: 那千層麵就不能放起司了哈哈
a: 可以用腰果醬或營養酵母做出類似起司的風味。
u: 真的嗎？我試試
a: 很多人覺得效果很不錯。
u: 好，謝謝
a: 記得注意維生素 B12 的補充。
u: 好，我會去買
a: 很好！
"""),
("2025-08-02 22:00", """
u: Atlas，我下個月要去京都
a: 好棒！是去旅遊嗎？
u@kyoto: 對，跟淑芬去五天，九月十號出發。我想吃精進料理
a: 京都很多寺院都有提供精進料理，很適合你現在的飲食。
u@aisle: 機票我訂好了，我搭飛機都一定選靠走道，上廁所比較方便
a: 了解，長途時靠走道確實比較自在。
u: 也有先訂特殊餐
a: 記得選純素的餐點代碼，不要選到一般的素食餐，可能有蛋奶。
u: 好，謝謝提醒
a: 不客氣！
u: 天氣真的熱到受不了
a: 京都九月也還很熱，要帶防曬。
u: OK
a: 祝旅途愉快！
"""),
("2025-08-23 15:15", """
u: 午安
a: 午安！準備得如何？
u: 差不多了，行李還沒收
a: 還有兩週多，慢慢來就好。
u@starter_dead: 對了，我出門前把小麥放冰箱了，結果上週發現長黴死掉了 QQ
a: 好可惜，半年多的心血……可以重新養一罐，或向朋友分一點。
u: 我朋友說要分我一點她的
a: 這樣最快了。
u: 嗯嗯
a: 還有什麼需要幫忙嗎？
u: 沒有了，謝謝
a: 不客氣，祝一切順利！
"""),
], """
zh para veg1 | 建宏一開始是吃哪一種素？為什麼吃素？
en update vegan | What is Jianhong's current diet?
zh update vegan | 建宏現在還吃蛋和乳製品嗎？
en temp vegan | Roughly when did Jianhong stop eating eggs and dairy?
zh cross cilantro | 建宏覺得香菜吃起來像什麼？
en pref cilantro | Which herb should never go in Jianhong's food?
zh para wife | 建宏的太太喜歡吃什麼？
en cross wife | Does Jianhong's wife eat meat?
zh kw sourdough | 「小麥」是什麼？
en cross sourdough | What did Jianhong name his sourdough starter?
zh update starter_dead | 建宏的酸種酵母現在還活著嗎？
zh kw fav_rest | 蔬慕是一間什麼樣的店？
en cross city | Which neighborhood does Jianhong live in?
zh temp anniv | 建宏和淑芬是哪天結婚的？結婚多久了？
en multi anniv booked | Where did Jianhong book dinner for his seventh wedding anniversary?
zh pref tea | 建宏吃完飯習慣喝什麼飲料？
en cross gift_wife | What present did Jianhong buy his wife for their anniversary?
zh para kyoto | 建宏九月要去哪裡玩？想吃什麼？
en pref aisle | Does Jianhong prefer a window or an aisle seat on planes?
zh kw kyoto | 建宏去京都玩幾天？哪天出發？
zh para booked | 紀念日訂的餐廳能配合建宏的飲食嗎？
zh cross vegan | 建宏不碰蛋奶一個月後，身體感覺怎樣？
""")


# ---------------------------------------------------------------- zh-07 two friends: moving house
conv("zh-07", {"y": (U, "怡君"), "z": (U, "志明")}, [
("2024-10-05 20:30", """
y: 志明！有大消息
z: 什麼什麼？
y@newjob: 我拿到竹科一間 IC 設計公司的 offer 了，做 verification engineer
z: 哇恭喜！！那不就要搬去新竹？
y@current: 對啊，我現在住中和這間三樓的公寓，房租一個月一萬八，合約年底到期
z: 時間剛剛好欸
y: 對，所以我打算年底前搬
z: 要住新竹市還是竹北？
y@area: 我想住竹北，離高鐵站近，回台北比較方便
z: 合理
z: 最近板橋這邊一直下雨，煩死
y: 中和也是，我的鞋子都濕了
z: 哈哈，秋天的雨
y: 好啦，我要去看租屋網了
z: 加油，有看到不錯的傳給我
"""),
("2024-10-26 14:00", """
y: 我去竹北看房子了
z: 怎麼樣？
y@newplace: 找到一間喜歡的，兩房一廳，在十二樓，月租一萬六千五，走路十分鐘到高鐵站
z: 比你現在便宜欸，還比較大
y: 對啊，竹北的新大樓真的很漂亮
y@landlord: 不過房東很嚴格，他說 "No pets, no smoking, no exceptions." 哈哈
z: 反正你也沒養寵物
y@plant: 對，只有一盆龜背芋
z: 那植物應該可以吧哈哈
y: 哈哈應該啦
y: 合約下週簽
z: 簽之前要看清楚押金跟修繕條款
y: 好，押金是兩個月
z: 正常
"""),
("2024-11-16 21:15", """
z: 搬家日期確定了嗎？
y@date1: 確定了，十一月三十號禮拜六
z: 要我幫忙嗎？
y: 要要要！拜託
z@help: 沒問題，我那天沒課，可以開我爸的休旅車幫你載小東西
y: 你最好了！
y@movers: 大件的我找了搬家公司，報價一萬二
z: 還算合理
y@sofa: 舊沙發我打算在臉書的二手社團賣掉，太大了搬不進新家電梯
z: 也好，新家再買新的
y: 對啊，床我想去 IKEA 買
z: IKEA 新竹店應該很近
y: 嗯！
z: Moving is basically a full-time job lol
y: 真的，光打包就累死
"""),
("2024-11-28 19:50", """
y: 志明，搬家要延期了
z: 蛤，為什麼？
y@date2: 房東說浴室的熱水器要換，要施工一週，所以改成十二月七號搬
z: 好，七號我也可以
y: 謝謝你！搬家公司我也改好日期了
z: 那沙發賣掉了嗎？
y@sofa_sold: 賣掉了，三千塊，買家自己來搬
z: 不錯欸
y@internet: 網路我也申請好了，中華電信光世代 500M
z: 做 verification 應該常常要在家連 VPN 吧
y: 偶爾，所以網路要快一點
z: 合理
y: 好，我要繼續打包了，箱子多到爆
z: 加油！
"""),
("2024-12-08 10:30", """
y: 我活著
z: 哈哈昨天辛苦了
y: 你更辛苦，謝謝你開車跑兩趟
z: 小事啦，請我吃飯就好
y@dinner: 下次你來竹北我請你吃那家米其林推薦的牛肉麵
z: 成交！
y: 今天要整理箱子，看到就頭痛
z: 一天整理一間就好
y: 好
z: 新家住起來怎樣？
y@view: 超讚，從客廳可以看到頭前溪
z: 哇
y: 晚上的夜景也很美
"""),
("2024-12-29 22:05", """
z: 新工作還好嗎？
y: 上了三週了，還在適應
z: 主管好相處嗎？
y: 還不錯，就是會議很多
y@commute: 通勤倒是很方便，騎機車十五分鐘就到公司
z: 比你以前在台北搭捷運還快
y: 對啊！
y@noise: 只是樓上的鄰居半夜會拖椅子，很吵
z: 可以寫紙條或跟管理室反映
y: 我已經跟管理室講了
z: 希望有用
z: 天氣好冷，新竹風很大吧
y: 超大，風城不是叫假的
"""),
("2025-01-12 18:40", """
y@party: 下週六，一月十八號，我要在新家辦暖房派對，你一定要來！
z: 當然！要帶什麼？
y: 帶你自己就好哈哈
z: 那我帶一瓶紅酒
y: 好啊
y@noise_fixed: 然後跟你說，樓上鄰居的問題解決了，管理室去講之後就安靜了
z: 太好了
z@zm_job: 我也跟你說，下學期我要帶高三的物理，壓力好大
y: 老師辛苦了！
z: 學測快到了，學生都很焦慮
y: 你一定可以的
z: 希望啦
y: 那十八號見囉
z: 好，到時見！
"""),
], """
zh para newjob | 怡君為什麼要搬到新竹？她的新工作是做什麼？
en cross newjob | What role did Yijun get hired for?
zh para current | 怡君搬家前住在哪裡？房租多少？
en cross area | Why did Yijun pick Zhubei over Hsinchu City?
zh para newplace | 怡君在竹北租的房子是什麼格局、在幾樓？
en cross newplace | How much is Yijun's new monthly rent?
zh cross landlord | 竹北房東訂了什麼規矩？
en update date2 | On what date did Yijun actually move?
zh update date2 | 搬家為什麼延後了？
zh multi date1 date2 | 搬家原本預定哪天，最後改到哪天？
en cross help | How did Zhiming help with the move?
zh kw movers | 搬家公司的報價是多少？
en multi sofa sofa_sold | What happened to Yijun's old sofa, and for how much?
zh kw internet | 怡君新家的網路申請了哪家、多快？
en cross view | What can Yijun see from her living room?
zh para commute | 怡君現在怎麼去上班？要多久？
en update noise_fixed | Is the upstairs neighbor still noisy?
zh kw party | 怡君的暖房派對是哪一天？
en cross zm_job | What does Zhiming do for a living?
zh para dinner | 怡君答應要請志明吃什麼？
zh para plant | 怡君家裡有養什麼寵物或植物嗎？
zh para help | 志明搬家那天打算開誰的車？
""")


# ---------------------------------------------------------------- zh-08 personal finance
conv("zh-08", {"u": (U, "俊傑"), "a": (A, "Atlas")}, [
("2025-02-08 21:00", """
u: Atlas 晚安，想請你幫我看一下理財
a: 晚安俊傑！當然好，先說說你的狀況吧。
u@salary1: 我月薪六萬二，年終大概兩個月，在桃園一間物流公司當系統分析師
a: 了解。有固定的支出跟儲蓄目標嗎？
u@goal: 我想五年內存到買房的頭期款，目標三百萬，想在桃園買
a: 以你的收入，如果每月能存下一半左右，再搭配投資，是有機會的。
u@parents: 每個月會給爸媽八千孝親費，房租一萬二
a: 扣掉這些，生活費控制得好的話，每月應該可以存下三萬左右。
u: 差不多
a: 建議先確認緊急預備金，大約六個月的生活費。
u: 好，這個我還沒存滿
a: 那可以先把這個當第一步。
u: OK，謝謝
a: 不客氣！
"""),
("2025-03-01 13:20", """
u: 午安
a: 午安！上次說的預備金有開始存嗎？
u@efund: 有，我開了一個數位帳戶專門放緊急預備金，目前存到十二萬，目標是十八萬
a: 分開帳戶很好，比較不會不小心花掉。
u@etf1: 然後我也開始每個月定期定額買 0050，一個月一萬
a: 長期投資大盤型 ETF 是很穩健的做法。
u: I know, I know, compound interest is the eighth wonder of the world. 我同事每天都在講
a: 哈哈，他說得沒錯，時間是複利最好的朋友。
u: 今天天氣好熱，不想出門。
a: 那就在家整理一下帳目也不錯。
u: 哈哈好
u@app: 我都用 CWMoney 記帳，已經記了一年多
a: 持續記帳一年很不容易，這些資料對規劃很有幫助。
u@spend: 嗯，發現我花最多的是外食
a: 外食是很多人的大宗支出，可以試著每週自己煮幾餐。
u: 好，我試試
"""),
("2025-03-22 20:40", """
u: Atlas，想問保險
a: 請說。
u@insurance: 我最近在看實支實付的醫療險，業務報的是一個月一千八左右
a: 實支實付對年輕人來說是很基本的保障，可以比較幾家的理賠條件和額度。
u: 好，我再比較一下
u@card: 還有信用卡，我現在只用一張現金回饋 2% 的，不想辦太多張
a: 卡片少一點比較好管理，記得每期全額繳清。
u: 對，我從來沒有用過循環
a: 很好的習慣。
u: 好，就這些，謝謝
a: 不客氣！
"""),
("2025-04-19 22:10", """
u: 好消息！
a: 什麼好消息？
u@raise: 我調薪了，月薪變六萬八
a: 恭喜！努力被看見了。
u@etf2: 所以我把 0050 的定期定額從一萬調成一萬五
a: 把加薪的部分拿去投資，很理性的做法。
u@efund_done: 而且緊急預備金也存滿了，十八萬
a: 太好了，這樣就有穩定的安全網了。
u: 最近在想要不要買車
a: 是為了通勤還是其他用途呢？
u@car1: 主要是假日想帶爸媽出去玩，我在看 Toyota 的 Corolla Cross，想辦車貸
a: 買車除了車貸，還有保險、稅金、停車費、保養這些持續的成本，要一起算進去。
u: 對欸，我沒想到停車費
a: 桃園的月租車位大概也要幾千塊，可以先查一下。
u: 好，我研究一下
"""),
("2025-05-10 15:30", """
u: Atlas 我決定了
a: 決定什麼呢？
u@car2: 我不買車了，算一算一年養車要十萬以上，會拖慢頭期款的進度，假日帶爸媽出去就租車
a: 很務實的決定，租車在偶爾使用的情況下確實比較划算。
u@zero: 對啊，The sales guy kept saying "zero percent interest", but it's never really zero.
a: 零利率通常會把成本藏在車價或其他費用裡，你看得很清楚。
u: 哈哈被我識破
a: 做得好！
u: 今天在下雨，整個城市都很濕
a: 梅雨季快到了。
u: 對，我要去買新的雨衣
a: 騎車要小心！
u: 好，謝謝
"""),
("2025-06-07 10:45", """
u: 早安
a: 早安俊傑！
u@progress: 跟你報告，我算了一下，頭期款目前存到七十五萬了
a: 進度很不錯！持續下去五年內達標很有機會。
u: 嗯嗯
u@bonus: 而且六月有發半年獎金，三萬，我全部丟進頭期款帳戶
a: 好紀律！
u: 想犒賞自己吃一頓好的
a: 適度犒賞自己也很重要，才能長期堅持。
u@treat: 那我要去吃那家一直想吃的燒肉，一人一千五
a: 好好享受！
u: 哈哈謝啦
a: 不客氣！
"""),
], """
zh update raise | 俊傑現在的月薪是多少？
en cross salary1 | What was Junjie's monthly salary before the raise, and what is his job?
zh para goal | 俊傑存錢最主要的目標是什麼？要多少？
en cross goal | How much does Junjie want for his house down payment, and in which city?
zh para parents | 俊傑每個月給父母多少錢？
en cross efund | Where does Junjie keep his emergency savings?
zh update efund_done | 俊傑的應急存款目標達成了嗎？
en kw etf2 | How much does Junjie put into 0050 each month now?
zh kw etf1 | 俊傑一開始每月定期定額 0050 多少？
zh cross app | 俊傑用哪一個 app 記帳？
en cross spend | What expense category turned out to be Junjie's largest?
zh para insurance | 俊傑在看的那張保單每月要繳多少？
en pref card | How many credit cards does Junjie like to carry, and what kind?
zh update car2 | 俊傑最後有買車嗎？為什麼？
en kw car1 | Which Toyota model was Junjie looking at?
zh multi car1 car2 | 俊傑本來想買車的用途是什麼？後來打算怎麼解決？
zh cross zero | 俊傑對業務說的零利率有什麼看法？
en temp progress | By early June, how much had Junjie saved toward the down payment?
zh temp bonus | 俊傑六月拿到的那筆獎金怎麼用？
en pref treat | What did Junjie decide to treat himself to?
zh kw app | 俊傑用 CWMoney 記帳多久了？
zh para treat | 俊傑想犒賞自己吃什麼？預算多少？
""")


# ---------------------------------------------------------------- zh-09 school: grad school applications
conv("zh-09", {"u": (U, "詩涵"), "a": (A, "Atlas")}, [
("2024-11-02 15:00", """
u: 嗨 Atlas，我需要你的幫忙
a: 嗨詩涵！怎麼了？
u@major: 我是政大統計系大四，想申請美國的 data science 碩士，明年秋天入學
a: 很棒的目標！目前準備到哪個階段了？
u@toefl1: 托福考了 92，GRE 考了 321
a: GRE 不錯，托福有些學校要求 100 以上，可以考慮再考一次。
u@retake: 我也這樣想，十二月初再考一次
a: 口說和寫作通常比較容易進步，可以針對這兩項練。
u@schools: 我目前的名單是 CMU、UW、UCSD、Columbia、還有 NYU
a: 名單有夢幻校也有相對穩的，很均衡。
u: 截止日大部分是十二月十五號
a: 那時間有點緊，推薦信要早點跟教授說。
u: 好，謝謝
a: 加油！
"""),
("2024-11-23 21:30", """
u: Atlas，幫我看一下推薦信的事
a: 好，請說。
u@rec1: 我想請教我迴歸分析的陳教授寫一封，我那門課拿 A+
a: 拿 A+ 的課的教授很適合。
u@rec2: 另一封想請我暑假在趨勢科技實習的主管寫，我在那邊做 threat data 的分析
a: 業界主管的推薦能補強實務經驗，很好的組合。
u@letter: 你可以幫我看信嗎？ Dear Professor Chen, I am writing to ask whether you would be willing to write a recommendation letter for my graduate applications.
a: 開頭很清楚！可以再補一句你修過哪門課、拿到的成績，方便教授回想。
u: 好！
a: 也記得附上你的履歷和 SOP 草稿。
u: 了解，謝謝你
a: 不客氣。
u: 今天好冷，我在宿舍裹棉被
a: 記得保暖，別感冒了。
"""),
("2024-12-14 23:50", """
u: 終於全部送出了
a: 恭喜！辛苦了。
u@toefl2: 而且托福重考出來了，104！口說進步超多
a: 太棒了，這下學校的門檻都達到了。
u: 哈哈我開心到尖叫
a: 這是妳努力的成果。
u@project: SOP 裡我主要寫我的專題，用 LSTM 預測台北的 PM2.5
a: 跟環境有關的資料分析題目很有意義，也很能展現技術能力。
u: 希望審查委員也這樣想
a: 一定會有人欣賞的。
u: 好，我要去睡了，快累死
a: 好好睡一覺！
"""),
("2025-01-18 14:20", """
u: 午安
a: 午安詩涵！寒假過得如何？
u: 回台南老家在耍廢哈哈
a: 申請完好好休息是應該的。
u: 我媽每天煮好多東西
a: 好幸福！
u@cold: 跟你說，我其實超怕冷，台北冬天我就受不了了
a: 那如果錄取到比較冷的地方，要好好準備保暖衣物。
u: 所以我私心希望上 UCSD，聖地牙哥四季如春
a: 加州的天氣確實很吸引人。
u: 面試通知也還沒來
a: 有些學校不需要面試，耐心等待吧。
u: 嗯嗯
a: 放假愉快！
"""),
("2025-02-22 10:05", """
u: Atlas！！！I got in!!!
a: 恭喜！！是哪一間？
u@admit_uw: UW 錄取我了，還給我一萬美金的獎學金
a: 太厲害了！恭喜恭喜！
u: 我爸媽超開心
a: 他們一定很為妳驕傲。
u@reject: 但 CMU 拒絕我了，有點難過
a: 很正常，CMU 的競爭非常激烈，UW 也是非常好的學校。
u: 對啊，還在等其他間
a: 好消息一定會接著來。
u: 希望！
"""),
("2025-03-15 20:40", """
u: 嗨
a: 嗨！有新消息嗎？
u@admit_ucsd: UCSD 也錄取了，可是沒有獎學金
a: 恭喜！現在妳有兩個很好的選擇。
u: 好難選喔
a: 可以比較課程內容、學費、生活費和畢業後的就業。
u: UW 學費比較便宜，加上獎學金差很多
a: 西雅圖的科技業很多，實習機會也不少。
u: 可是天氣……
a: 西雅圖冬天比較濕冷，不過很多人說習慣了還好。
u: 我再想想
a: 慢慢想，這是很重要的決定。
"""),
("2025-04-12 16:30", """
u: Atlas，我決定了
a: 妳選了哪一間？
u@decide: 我選 UW，獎學金太香了，而且西雅圖的實習機會多，冷就多買幾件羽絨衣吧哈哈
a: 很理性的決定，恭喜妳！
u: 謝謝，已經回覆 accept 了
a: 接下來要準備簽證和住宿。
u@housing: 住宿我打算先住學校的研究生宿舍，第一年比較單純
a: 好主意，熟悉環境後再決定要不要搬出來。
u@flight: 機票訂了九月十號出發
a: 時間還很充裕，記得先預約簽證面談。
u: 好，感謝你這半年陪我
a: 不客氣，能陪妳走這段很開心！
"""),
], """
zh para major | 詩涵大學讀什麼？想申請什麼學位？
en cross major | Which university does Shihan study at as an undergraduate?
zh update toefl2 | 詩涵最後的托福成績是多少？
en update toefl2 | What was Shihan's final TOEFL score after retaking it?
en cross toefl1 | What was Shihan's GRE score?
zh kw schools | 詩涵申請了哪幾間學校？
en cross rec1 | Who is the professor writing Shihan a recommendation, and what class did he teach her?
zh multi rec1 rec2 | 詩涵的兩封推薦信分別找誰寫？
en cross rec2 | Where did Shihan intern, and what did she work on?
zh para rec2 | 詩涵的第二位推薦人是在哪家公司帶她的？
zh para project | 詩涵的專題研究內容是什麼？
en cross project | What kind of model did Shihan use to forecast air pollution?
zh pref cold | 詩涵對天氣有什麼偏好？
en pref cold | Why was Shihan secretly hoping for the California school?
zh temp admit_uw | 二月哪一間學校先錄取了詩涵？有獎學金嗎？
en cross reject | Which school turned Shihan down?
zh update decide | 詩涵最後決定去哪一間研究所？
en multi admit_uw decide | Where will Shihan go for grad school, and how much scholarship does it give her?
zh para housing | 詩涵第一年打算住哪裡？
zh cross letter | 詩涵草擬的那封英文信，是想請教授幫她什麼忙？
en temp flight | When does Shihan fly out to start her master's?
zh temp retake | 詩涵打算什麼時候重考托福？
zh kw reject | CMU 的申請結果如何？
""")


# ---------------------------------------------------------------- zh-10 hobbies: photography, guitar, hiking
conv("zh-10", {"u": (U, "家豪"), "a": (A, "Atlas")}, [
("2025-06-08 20:10", """
u: Atlas，我終於入坑了
a: 入什麼坑？
u@camera: 我買了一台 Fujifilm X-T5，配 23mm f/1.4 的鏡頭，刷卡刷到手軟
a: 恭喜！X-T5 的畫質和手感都很好，很適合街拍和旅行。
u: 我看 YouTube 看了三個月才下手
a: 研究這麼久，一定很有感情。
u@film_sim: 我最喜歡它的底片模擬，Classic Chrome is my go-to, no contest.
a: 那種低飽和、偏冷的色調很有味道。
u: 這週末要去大稻埕拍照
a: 大稻埕的老建築和迪化街很好拍，傍晚的光線最漂亮。
u: 好，謝謝
a: 拍得開心！
u: 今天天氣好熱，不想出門。可是為了拍照還是要出門哈哈
a: 記得帶水，也別讓相機在太陽底下曬太久。
"""),
("2025-06-29 21:40", """
u: 嗨
a: 嗨家豪！大稻埕拍得如何？
u: 拍了三百多張，能用的大概二十張哈哈
a: 這很正常，挑照片也是練習的一部分。
u@guitar: 對了，我另外也開始學吉他了，每週二晚上去音樂教室上課，老師叫阿 Ben
a: 好充實！學吉他手指一開始會很痛喔。
u: 真的，指尖都起繭了
u@song1: 現在在練〈小幸運〉，刷扣還卡卡的
a: 那首歌和弦不會太難，練熟了很有成就感。
u: 希望啦
a: 每天練十五分鐘就會很有進步。
u: 好，了解
a: 加油！
"""),
("2025-07-20 09:30", """
u: 早安，我剛從合歡山回來
a: 早安！玩得如何？
u@hehuan: 昨天爬了合歡北峰，晚上在武嶺看到銀河。The Milky Way over Wuling was unreal.
a: 太棒了，晴朗的夜晚在高山上看星空真的很震撼。
u@altitude: 不過我有點高山症，頭痛了一整晚，吃了普拿疼才好一點
a: 高山症要小心，下次可以在埔里或清境多停留適應一下再上山。
u: 好，下次會注意
u@hike_next: 我們下一個目標是十月去爬雪山主峰
a: 雪山需要申請入園和山屋，要提早準備。
u: 對，八月要抽山屋
a: 祝抽籤順利！
u: 先去補眠了
a: 好好休息！
"""),
("2025-08-10 19:00", """
u: Atlas，山屋沒抽到 QQ
a: 好可惜，那十月的計畫怎麼辦呢？
u@hike_v2: 我們改成去爬嘉明湖，那邊的山屋我朋友抽到了
a: 嘉明湖很漂亮，被稱為天使的眼淚，不過路程很長，要好好練腳力。
u: 對，我最近每週去爬樓梯
a: 很好的訓練方式。
u@lens: 然後我又買了一顆 70-300 的長鏡頭，想拍山上的鳥
a: 長鏡頭拍鳥很有趣，不過背上山會有點重。
u: 哈哈，為了帝雉拚了
a: 希望你拍到！
u: 嗯嗯
"""),
("2025-08-31 22:20", """
u: 跟你分享一個好消息
a: 請說！
u@exhibit: 我那張大稻埕的照片被選進社區的攝影展了，九月中在中山區的藝文中心展出
a: 恭喜！第一次拍照就入選展覽，很厲害。
u: 我自己都嚇到
a: 這證明你的眼光很好。
u@boardgame: 對了，我們每週五晚上都有桌遊之夜，我最愛的是璀璨寶石
a: 璀璨寶石規則簡單又很有策略性，很適合朋友聚會。
u@monopoly: 但大富翁我打死不玩，一局要玩三個小時還會吵架
a: 哈哈，大富翁確實是破壞友情的遊戲。
u: 對啊，太傷感情
a: 哈哈
u: 好，先這樣
a: 晚安！
"""),
("2025-09-21 18:15", """
u: 嗨 Atlas
a: 嗨！攝影展順利嗎？
u: 很順利，我爸媽還特地去看
a: 他們一定很驕傲。
u@song2: 吉他也有進步，現在換練 Ed Sheeran 的 Perfect，阿 Ben 說我的節奏比較穩了
a: 很好的進步，Perfect 的指彈很優美。
u: 哈哈還在努力
a: 持續練就會越來越順。
u: 下個月就要去嘉明湖了，好緊張
a: 記得準備好保暖裝備、頭燈和足夠的水。
u: 好，謝謝
a: 祝你登山順利，也拍到好照片！
"""),
], """
zh para camera | 家豪買的是哪一台相機、配什麼鏡頭？
en kw camera | Which lens did Jiahao buy along with the X-T5?
zh kw film_sim | 家豪最常用哪一種底片模擬？
en pref film_sim | Which color profile does Jiahao always go back to?
zh para guitar | 家豪每週幾去上吉他課？老師是誰？
en cross guitar | Who teaches Jiahao guitar?
zh update song2 | 家豪現在正在練的曲子是哪一首？
en update song2 | What song is Jiahao practicing on guitar these days?
en cross song1 | What was the first song Jiahao practiced on guitar?
zh cross hehuan | 家豪在合歡山晚上看到什麼？
en temp hehuan | What did Jiahao climb in mid-July, and what did he see that night?
en cross altitude | What health problem did Jiahao have on the mountain and how did he deal with it?
zh update hike_v2 | 家豪十月最後要去爬哪裡？
en multi hike_next hike_v2 | Why did Jiahao have to change his October hiking plan, and where is he going instead?
zh kw lens | 家豪添購 70-300 的目的是什麼？
zh temp exhibit | 家豪的照片什麼時候、在哪裡展出？
en cross exhibit | Which of Jiahao's photos got into an exhibition?
zh pref boardgame | 家豪最喜歡的桌遊是什麼？
en pref monopoly | Which board game does Jiahao refuse to play, and why?
zh kw boardgame | 桌遊之夜是每週哪一天？
zh kw altitude | 家豪在山上為什麼吃了普拿疼？
zh para song1 | 家豪剛學吉他時在練哪一首歌？
""")


# ---------------------------------------------------------------- zh-11 wedding planning, heavy code-switching
conv("zh-11", {"u": (U, "Jessica"), "a": (A, "Atlas")}, [
("2024-12-22 23:10", """
u: Atlas!!! 我被求婚了！！！
a: 天啊恭喜妳！快跟我說細節！
u@propose: David 在淡水漁人碼頭，夕陽剛好下山的時候跪下來，I literally cried so hard
a: 好浪漫！夕陽加上海邊，一定很難忘。
u@david: 我們在一起四年了，他是我大學社團的學長，現在在做建築師
a: 四年的感情走到這一步，真的很替你們開心。
u: 哈哈謝謝，我現在還在暈
a: 好好享受這個時刻，婚禮的事之後再慢慢規劃。
u: 對，明天再來煩惱
a: 晚安，今晚一定睡得很甜。
u: Good night!
a: Good night！
"""),
("2025-01-12 14:30", """
u: OK 開始認真規劃了
a: 好，從哪裡開始呢？
u@date: 我們選了日子，2025 年 10 月 18 號，星期六
a: 秋天很適合辦婚禮，天氣比較舒服。
u@mom_wish: Honestly I just want a small wedding, but my mom has other ideas. 她想要傳統文定跟大宴客
a: 這很常見，可以跟長輩討論出雙方都能接受的版本，例如文定照傳統，婚宴簡約。
u@budget: 我們預算抓八十萬左右，兩家一起出
a: 這個預算可以辦得很漂亮，關鍵是場地和人數。
u@guests1: 我媽列的名單就一百八十個人了 orz
a: 人數會大幅影響預算，可以先列出必邀和可邀的兩份名單。
u: 好主意
a: 慢慢來，還有很多時間。
u: 今天好冷，我只想躺在被窩
a: 寒流來了，多穿一點。
"""),
("2025-02-09 16:00", """
u: Atlas，場地訂好了
a: 太好了！是哪裡？
u@venue: 陽明山的青田莊園，戶外花園證婚，晚上在室內宴客
a: 戶外證婚很有氛圍，不過記得確認雨備方案。
u: 有雨備，是玻璃屋
a: 那就很安心了。
u@planner: 我們也簽了婚顧，叫 Vivian，她超有效率
a: 有好的婚顧能省很多心力。
u@flowers: 然後花的部分我要繡球花，千萬不要百合，我對百合的花粉過敏，一聞就狂打噴嚏
a: 了解，繡球花很適合戶外花園的氛圍，也要請花藝師避開有花粉的花材。
u: 對，我已經跟 Vivian 說了
a: 很好。
u: 好，先這樣
a: 好的，有需要隨時找我！
"""),
("2025-03-02 20:20", """
u: 試婚紗回來了，累死
a: 辛苦了！有找到喜歡的嗎？
u@dress: 有！我選了一件象牙白的魚尾禮服，不是純白的，純白讓我看起來臉很黃
a: 魚尾款很顯身材，象牙白也比較溫柔。
u: David 還不能看哈哈
a: 婚禮當天再給他驚喜吧！
u@job: 最近工作也很忙，我們品牌春季新品要上市，我是行銷經理，每天開會開到頭昏
a: 工作跟婚禮一起忙，要記得照顧自己。
u: 嗯嗯，謝謝你
a: 不客氣。
u: 今天還吃了一堆甜點，婚紗好像會穿不下哈哈
a: 哈哈，偶爾放縱一下沒關係。
"""),
("2025-03-30 21:45", """
u: Atlas，蜜月的事
a: 想去哪裡呢？
u@honey1: 我們本來想去冰島看極光，十一月出發
a: 冰島很夢幻，十一月是看極光的季節。
u@honey2: 可是 David 超怕冷，他說 no way he's spending two weeks at minus ten，所以我們改去北海道了，看楓葉加泡溫泉
a: 北海道很適合蜜月，美食和溫泉都很棒，十一月初可能還能看到初雪。
u: 對，而且比較近，不用飛那麼久
a: 這樣也比較不累。
u: 機票已經開始看了
a: 可以趁早鳥優惠買。
u: 好
a: 好期待你們的旅程！
"""),
("2025-04-20 15:10", """
u: 名單的事終於吵完了
a: 最後怎麼決定？
u@guests2: We're capping it at 120, final answer. 我媽讓步了，親戚只請到第二層
a: 太好了，大家都有讓步，這樣預算也比較好控制。
u: 我媽後來說她也覺得太多人會累
a: 長輩能理解就好。
u@engage: 然後文定訂在八月九號，在我爸媽家辦
a: 傳統文定很有意義，也讓媽媽圓了心願。
u: 對啊，這樣她就開心了
a: 兩全其美。
u: 好了，我去吃晚餐
a: 好好享受晚餐！
"""),
("2025-05-18 11:20", """
u: 早安
a: 早安 Jessica！
u@song: 我們選好進場音樂了，是 Bruno Mars 的 Marry You
a: 很歡樂的選擇，賓客一定會跟著拍手。
u@song_pick: 哈哈對啊，David 選的
a: 很有他的風格。
u@photog: 婚攝也訂好了，是 Vivian 推薦的，叫阿凱，拍得超自然
a: 自然風的婚攝很受歡迎。
u: 今天天氣好好，我要去陽明山走走
a: 太好了，順便去看看場地。
u: 對，順便去看看
a: 玩得愉快！
"""),
], """
zh para propose | Jessica 是在哪裡被求婚的？
en cross propose | Where did David pop the question, and at what time of day?
zh para david | Jessica 的未婚夫是做什麼的？他們怎麼認識的？
en cross david | How long had Jessica and David been together when he proposed?
zh kw date | Jessica 和 David 的婚禮是哪一天？
en temp date | What day of the week is the wedding?
zh cross mom_wish | Jessica 自己想要什麼樣的婚禮？
en para budget | What is the wedding budget, and who is paying?
zh update guests2 | 婚宴最後要請多少人？
en update guests2 | How many guests will there be at the wedding in the end?
en multi guests1 guests2 | How much did the guest list shrink from Jessica's mom's first draft?
zh cross venue | 婚禮在哪裡辦？證婚在室內還是戶外？
zh kw planner | 婚顧 Vivian 給 Jessica 的印象如何？
zh pref flowers | Jessica 婚禮選了哪種花？又為什麼要避開某種花？
en pref flowers | Which flower must be kept away from Jessica?
zh pref dress | Jessica 選的禮服是什麼款式、什麼顏色？
en cross job | What does Jessica do for work?
zh update honey2 | 他們的蜜月最後要去哪裡？
zh cross honey2 | 為什麼蜜月沒有去冰島？
en cross honey1 | Where did they first want to go for the honeymoon, and for what?
zh temp engage | 文定是什麼時候？在哪裡？
en cross song | Which song will play when the couple walks in?
zh kw photog | 阿凱是誰？
zh kw budget | 八十萬的婚禮預算由誰負擔？
zh multi song song_pick | 婚禮的進場歌是哪首？是誰挑的？
""")


# ---------------------------------------------------------------- zh-12 two parents chatting about kids
conv("zh-12", {"h": (U, "宗翰"), "y": (U, "小芸")}, [
("2025-05-03 21:00", """
h: 小芸，好久不見！最近好嗎
y: 宗翰！還不錯啊，就是被小孩追著跑哈哈
h: 我懂，我家那隻也是
y: 小宇幾歲了？
h@son: 五歲了，現在讀小太陽幼兒園的大班
y: 時間過好快，我記得他剛出生的樣子
h@dino: 他現在超迷恐龍，最喜歡三角龍，家裡到處都是恐龍模型
y: 哈哈好可愛
y@daughter: 我家朵朵七歲了，今年讀小一
h: 小一適應得還好嗎？
y: 還不錯，就是功課有點多
h: 辛苦了
y: 對了，聽說佳穎懷孕了？
h@due1: 對啊！第二胎，是女生，預產期八月二十號
y: 恭喜恭喜！
h: 謝謝～
"""),
("2025-05-24 20:30", """
y: 宗翰，上次喜酒小宇還好嗎？
h@shrimp: 不好，他吃了一口蝦球就全身起疹子，嘴唇腫起來，後來去醫院驗出來是蝦子過敏
y: 天啊，好可怕
h: 嚇死我們了，現在出去吃飯都要先問有沒有蝦
y: 甲殼類的東西都要小心
h: 對，醫生也這樣說
y@wfh: 我最近也很崩潰，Working from home with a kid is chaos, honestly. 朵朵放學回家我就不用工作了
h: 哈哈完全可以想像
y: 你家平常誰顧小宇？
h: 佳穎比較多，不過她現在肚子大了
y: 要多休息
h: 嗯嗯
"""),
("2025-06-14 15:40", """
h: 想問你一下，朵朵有學才藝嗎？
y@dd_swim: 有，她每週三學游泳，很喜歡
h@piano: 小宇每週六早上學鋼琴，但他每次都哭著不想去
y: 可能他不是那麼喜歡吧
h: 我也在想要不要讓他換
y: 可以讓他試試別的，看他對什麼有興趣
h: 好，我問問看
y@myopia: 對了，朵朵上次檢查近視兩百度了，我們現在嚴格控制看螢幕
h: 才七歲就兩百度，要注意
h@screen: 我們家規定小宇一天只能看三十分鐘平板
y: 這個規定好
h: 他每次都討價還價哈哈
y: 哈哈小孩都這樣
"""),
("2025-07-05 10:15", """
h: 跟你說，小宇不學鋼琴了
y: 真的喔？
h@soccer: 對，改成每週六去踢足球，他超開心，每次都跑到滿身大汗
y: 找到喜歡的最重要
h@wake: 真的，他現在週六早上自己就起床了哈哈
y: 哈哈好可愛
h@school: 然後我們在研究明年小學的事，家附近的公立小學跟一間實驗小學在考慮
y: 實驗小學要抽籤吧？
h@school_reg: 對，報名在十一月
y: 祝你們抽中！
h: 謝謝
y: 今天好熱，朵朵吵著要去玩水
h: 去河濱公園的戲水區啊
y: 好主意！
"""),
("2025-07-26 22:10", """
y: 佳穎還好嗎？快生了吧
h: 還好，就是很容易累
h@helper: 我媽說寶寶出生後會搬來幫忙顧三個月
y: 有阿嬤幫忙太好了
h: 對啊，不然我們兩個應該會瘋掉
y: 小宇知道要當哥哥了嗎？
h@bro: 知道，他說要把他的三角龍送給妹妹哈哈
y: 好可愛喔！
h: 不過他後來又說只借她玩
y: 哈哈哈
h: 好啦，我去哄睡了
y: 晚安
"""),
("2025-08-16 08:30", """
h: 小芸！妹妹出生了！
y: 真的嗎！恭喜！不是說八月底嗎？
h@born: 提早了一週，八月十四號凌晨三點出生，兩千九百公克
y: 母女平安嗎？
h: 都很平安，佳穎很勇敢
y@gift: 太好了！我準備了一個小禮物，是一套有機棉的包巾
h: 謝謝你！
h@baby_name: 我們幫她取名叫安安，希望她平平安安
y: 好好聽的名字
h: 哈哈，小宇一直想抱她
y: 記得讓他先洗手
h: 會的
"""),
("2025-08-30 20:40", """
y: 安安還好嗎？
h: 很好，就是半夜兩個小時就要喝一次奶
y: 新生兒都這樣，撐過去就好
h: 我已經是熊貓眼了
y: 哈哈辛苦了
h@grandma: 還好我媽來了，她晚上會幫忙顧一段
y: 阿嬤太偉大了
h: 小宇最近也很乖，會幫忙拿尿布
y: 好棒的哥哥
y: 下次帶朵朵去看妹妹
h: 好啊，歡迎
y: 那先這樣，掰掰
h: 掰掰！
"""),
], """
zh para son | 小宇今年幾歲？讀哪一間幼兒園？
en cross son | Which kindergarten does Zonghan's son attend?
zh pref dino | 小宇最喜歡的恐龍是哪一種？
en cross shrimp | What is Zonghan's son allergic to, and how did they find out?
zh para shrimp | 小宇吃到什麼會出現過敏反應？
en cross daughter | How old is Xiaoyun's daughter and what grade is she in?
zh cross wfh | 小芸說在家工作又要顧小孩是什麼感覺？
zh para due1 | 佳穎肚子裡的寶寶是男是女？
en update born | When was Zonghan's baby girl actually born?
zh update born | 安安比預產期早了多久出生？出生時多重？
en kw baby_name | What does the name 安安 express?
zh update soccer | 小宇現在週末上什麼課？
en multi piano soccer | Why did Zonghan's son drop piano, and what does he do on Saturdays now?
en cross dd_swim | What activity does Duoduo do on Wednesdays?
zh para myopia | 朵朵的視力狀況如何？
en pref screen | How much tablet time is Xiaoyu allowed each day?
zh temp school school_reg | 宗翰在考慮小宇明年要讀哪種小學？什麼時候報名？
en cross helper | Who will help look after the newborn, and for how long?
zh kw bro | 小宇說要把三角龍怎麼樣？
en cross gift | What gift did Xiaoyun prepare for the baby?
zh para wake | 換了週末的課之後，小宇早上起床有什麼變化？
zh para helper | 安安出生之後，誰會住進來幫忙？待多久？
""")


# ---------------------------------------------------------------- checks and output
CJK = re.compile(r"[\u3400-\u9fff]")


def _longest_common(a: str, b: str) -> str:
    """Longest common substring of a and b (case-insensitive, punctuation and spaces dropped)."""
    a, b = (re.sub(r"[\W_]+", "", x.lower()) for x in (a, b))
    best, prev = "", [0] * (len(b) + 1)
    for i in range(1, len(a) + 1):
        cur = [0] * (len(b) + 1)
        for j in range(1, len(b) + 1):
            if a[i - 1] == b[j - 1]:
                cur[j] = prev[j - 1] + 1
                if cur[j] > len(best):
                    best = a[i - cur[j]:i]
        prev = cur
    return best


def check(data: Dataset, show: bool = False) -> None:
    assert len(data["conversations"]) >= 12
    total_q = total_m = 0
    by_lang: Counter[str] = Counter()
    by_kind: Counter[str] = Counter()
    by_lang_kind: Counter[tuple[str, str]] = Counter()
    for c in data["conversations"]:
        sessions = c["sessions"]
        assert 4 <= len(sessions) <= 10, (c["id"], len(sessions))
        n_msgs = sum(len(s["messages"]) for s in sessions)
        assert 60 <= n_msgs <= 140, (c["id"], n_msgs)
        assert [s["date"] for s in sessions] == sorted(s["date"] for s in sessions), c["id"]
        for s in sessions:
            assert re.fullmatch(r"202[45]-\d\d-\d\d \d\d:\d\d", s["date"]), s["date"]
            for m in s["messages"]:
                assert m["role"] in ("user", "assistant") and m["sender"] and m["text"], m
        total_m += n_msgs
        senders = {m["sender"] for s in sessions for m in s["messages"]}
        for q in c["questions"]:
            assert q["lang"] in ("zh", "en") and q["kind"] in KINDS.values(), q
            if q["lang"] == "zh":
                assert CJK.search(q["question"]), q
            else:
                assert len(CJK.findall(q["question"])) <= 4, q
            texts: list[str] = []
            for ev in q["evidence"]:
                s_i, m_i = map(int, ev.split(":"))
                assert 1 <= s_i <= len(sessions) and 1 <= m_i <= len(sessions[s_i - 1]["messages"]), (c["id"], ev)
                texts.append(sessions[s_i - 1]["messages"][m_i - 1]["text"])
            assert len(set(q["evidence"])) == len(q["evidence"]), q
            common = max((_longest_common(q["question"], t) for t in texts), key=len)
            weak = len(common) < 4 or common in senders or (not CJK.search(common) and len(common) < 6)
            flag = "" if q["kind"] == "keyword" or weak else f"   <- shares '{common}'"
            if show or flag:
                print(f"[{c['id']} {q['lang']} {q['kind']}] {q['question']}{flag}")
                if show:
                    for ev, t in zip(q["evidence"], texts, strict=True):
                        print(f"      {ev}: {t}")
            by_lang[q["lang"]] += 1
            by_kind[q["kind"]] += 1
            by_lang_kind[q["lang"], q["kind"]] += 1
            total_q += 1
    assert total_q >= 220, total_q
    print(f"conversations {len(data['conversations'])}, sessions "
          f"{sum(len(c['sessions']) for c in data['conversations'])}, messages {total_m}, questions {total_q}")
    print("by lang:", dict(by_lang))
    print("by kind:", dict(by_kind))
    print("by lang and kind:", {f"{lang}/{k}": n for (lang, k), n in sorted(by_lang_kind.items())})


def main() -> None:
    data: Dataset = {"name": "zh-facts",
                     "description": "Traditional Chinese (code-switched with English) conversations between users and an "
                                    "assistant or between friends, with paraphrased, cross-lingual, update, multi-evidence, "
                                    "temporal, preference and keyword questions pointing at the messages that state each fact.",
                     "scope": "session",
                     "conversations": CONVS}
    text = json.dumps(data, ensure_ascii=False, indent=1)
    check(json.loads(text), show="--show" in sys.argv)
    with open(OUT, "w", encoding="utf-8") as f:
        f.write(text)
    print("wrote", OUT)


if __name__ == "__main__":
    main()
