"""Off-topic questions for the abstention benchmark (written for memstrata, not from LoCoMo).

Each asks about something an everyday personal or work conversation never touches: specialist
science and medicine, law, engineering specifications, finance, history and trivia, in English
and Traditional Chinese, as questions, requests, keyword queries, short and long.
:func:`off_topic_for` keeps, per conversation, only the questions none of whose index terms
(stemmed words, CJK pairs, as the in-memory BM25 splits them) occurs in that conversation, so a
question counts as off-topic only where its content words appear nowhere; a search that returns
a matched hit for one of them has returned filler.

The questions are grouped by topic (a topic is one question, or a few that ask about the same
thing: paraphrases, keyword forms, translations). :data:`OFF_TOPIC` holds them all;
:data:`OFF_TOPIC_TRAIN` and :data:`OFF_TOPIC_EVAL` split them in two by the parity of the
topic's position (even: train, odd: eval), so the paraphrases of one topic never sit in both
halves. A ranker may be trained or tuned on the train half only; the eval half is kept for
measuring it.
"""

from __future__ import annotations

from collections.abc import Iterable

from memstrata.search._bm25 import tokens

__all__ = ["OFF_TOPIC", "OFF_TOPIC_EVAL", "OFF_TOPIC_TRAIN", "SYMBOL_QUERIES", "off_topic_for"]

_TOPICS: tuple[str | tuple[str, ...], ...] = (
    # The first 82 questions, their paraphrases grouped into one topic each.
    ("quantum chromodynamics lattice", "量子色動力學的晶格計算"),
    ("What is the torque specification for the cylinder head bolts?",
     "cylinder head gasket torque sequence", "汽缸蓋螺絲的扭力規格",
     "What torque wrench fits lug nuts on a pickup truck?", "M8螺栓的鎖固扭力"),
    ("How do I configure a Kubernetes ingress controller with TLS?",
     "Kubernetes ingress TLS certificate rotation"),
    "Which mutual fund has the lowest expense ratio for bonds?",
    ("Explain the Krebs cycle and oxidative phosphorylation",
     "mitochondrial ATP synthase stoichiometry"),
    ("What's the capital gains tax rate on cryptocurrency?",
     "When is the quarterly VAT return due?"),
    ("How many milligrams of ibuprofen can a toddler take?",
     "ibuprofen paracetamol toddler dosage"),
    "Who won the 1987 Formula One championship?",
    ("What's the syntax for a recursive CTE in PostgreSQL?",
     "PostgreSQL vacuum autovacuum thresholds"),
    "How do I descale an espresso machine boiler?",
    ("When does the warranty on the dishwasher expire?", "洗碗機的保固什麼時候到期？"),
    "What is the airspeed velocity of an unladen swallow?",
    ("Recommend a firmware update for the router's VPN",
     "What's the firmware checksum of the thermostat?",
     "thermostat firmware checksum mismatch"),
    ("How do you calculate the eigenvalues of a Hermitian matrix?",
     "eigenvalue decomposition of Hermitian matrices"),
    "What did the plumber quote for replacing the water heater?",
    ("Which ferry runs from Helsinki to Tallinn?", "Helsinki Tallinn ferry timetable"),
    "Summarize the Treaty of Westphalia",
    "How much does a cubic metre of concrete weigh?",
    ("What is the melting point of tungsten?", "tungsten carbide drill bits for masonry",
     "鈦合金的熔點是多少？"),
    "Compare SSD endurance ratings: TBW versus DWPD",
    "What's the password policy for the payroll system?",
    "Which antibiotic treats streptococcal pharyngitis?",
    "How do I rebase a forked repository onto upstream?",
    "What's the dosage of metformin for prediabetes?",
    "How do cephalopods change skin colour?",
    "What is the boiling point of liquid nitrogen?",
    "Which crankshaft bearing clearance is recommended?",
    "How to solder surface-mount resistors?",
    "What's the latency of the Tokyo stock exchange matching engine?",
    ("Explain Byzantine fault tolerance in blockchain consensus",
     "Byzantine quorum certificates in Tendermint", "區塊鏈共識演算法的拜占庭容錯"),
    "How many calories are in a croissant?",
    ("Who invented the stethoscope?", "stethoscope diaphragm versus bell"),
    ("Describe the mating ritual of albatrosses", "albatross courtship dance"),
    ("What is the half-life of carbon-14?", "carbon-14 radiometric dating half-life"),
    ("How do I appeal a parking fine in Rotterdam?",
     "municipal zoning variance appeal procedure"),
    "Which cryptographic hash replaced SHA-1 in Git?",
    ("What's the mortgage amortization schedule for a thirty-year loan?",
     "房屋貸款的利率是多少？"),
    "Give me the chord progression of a twelve-bar blues in E",
    "How thick should drywall be for a ceiling?",
    "What causes aurora borealis?",
    "How do I renew a Norwegian driving licence?",
    ("Which semiconductor fab produces three-nanometre wafers?",
     "semiconductor lithography EUV wafers", "半導體晶圓廠的良率"),
    ("What is the Nyquist frequency of a 44.1 kHz signal?",
     "Nyquist sampling aliasing filter"),
    ("How do submarines regulate buoyancy with ballast tanks?",
     "submarine ballast tank buoyancy"),
    ("What's the spreadsheet formula for compound interest?",
     "compound interest spreadsheet formula"),
    ("How are zeolites used in detergent?", "zeolite ion exchange in detergents"),
    ("Which glacier is retreating fastest in Patagonia?",
     "Patagonian glacier retreat measurements"),
    "請說明光合作用的暗反應",
    "股票期權的履約價怎麼算？",
    "印表機碳粉匣要去哪裡換？",
    "颱風的氣壓梯度如何計算？",
    "甲狀腺功能檢查的數值",
    # English.
    "Derive the Navier-Stokes equations for an incompressible fluid",
    "Which enzyme unwinds the double helix during DNA replication?",
    "ASTM A325 structural bolt proof load",
    "How is the Reynolds number used to predict turbulent flow in a pipe?",
    "What is the prescriptive period for adverse possession under Scots law?",
    "List the noble gases in order of atomic mass",
    "Who painted the ceiling of the Sistine Chapel?",
    "What gauge of copper wire does a 40-amp circuit need?",
    "Explain the Higgs mechanism without equations",
    "radial solution of the Schrödinger equation for hydrogen",
    "What's the difference between a tort and a breach of contract?",
    "Which moon of Saturn has lakes of liquid methane?",
    "How many bones make up the adult human skull?",
    "Explain how a Wankel rotary engine seals its combustion chambers",
    "IEEE 754 double precision exponent bias",
    "What was the population of ancient Carthage at its peak?",
    "Calculate the moment of inertia of a thin-walled hollow cylinder",
    "What is the Mohs hardness of corundum?",
    "Which article of the Third Geneva Convention covers the repatriation of prisoners of war?",
    "How do you size an expansion vessel for a hydronic heating loop?",
    "Why do cyclones spin clockwise in the southern hemisphere?",
    "Give the IUPAC name of caffeine",
    "TCP congestion control: Reno versus CUBIC",
    "Which dinosaur had the largest skull ever found?",
    "How is the Gini coefficient computed from a Lorenz curve?",
    "H7/g6 shaft and hole fit tolerances",
    "Who was the last emperor of the Ming dynasty?",
    "Rayleigh scattering wavelength dependence",
    "What is the yield strength of 6061-T6 aluminium?",
    "Explain the doctrine of promissory estoppel",
    "How many symphonies did Anton Bruckner complete?",
    "Describe the life cycle of Plasmodium falciparum in the mosquito",
    "refractive index of borosilicate glass",
    "Which country has the longest coastline in the world?",
    "What's the nuclear spin of a deuteron?",
    "Explain the CAP theorem with a partitioned database as the example",
    "Which voltages does USB Power Delivery's extended power range allow?",
    "subduction zone megathrust seismicity",
    "How does a cyclotron accelerate protons?",
    "Tensile strength of Kevlar 49 fibre",
    "Who determined the structure of penicillin by X-ray crystallography?",
    "How are Feynman diagrams used to compute scattering amplitudes?",
    "Which amendment to the US Constitution abolished slavery?",
    "What's the flash point of diesel fuel?",
    "Explain Gödel's incompleteness theorems",
    "how to bleed hydraulic disc brakes",
    "What is the specific heat capacity of granite?",
    "Which wavelength does a helium-neon laser emit?",
    "Explain the role of the Golgi apparatus in protein sorting",
    "Time complexity of Dijkstra's algorithm with a Fibonacci heap?",
    "Summarise the Epic of Gilgamesh",
    "How deep is the Challenger Deep in the Mariana Trench?",
    "How is the moment magnitude of an earthquake calculated?",
    "What are the rules of succession to the Danish throne?",
    "Explain how a Stirling engine turns heat into work",
    "piezoelectric coefficient of lead zirconate titanate",
    "What is the orbital period of Halley's Comet?",
    "Does the International Court of Justice have jurisdiction over states that never "
    "accepted it?",
    "What does the QT interval on an electrocardiogram measure?",
    "Which element has the highest electronegativity?",
    ("Write Maxwell's equations in differential form", "馬克士威方程組的積分形式"),
    "Debye temperature of diamond",
    "What is the quorum for a shareholder vote under Delaware corporate law?",
    "How do ribosomes read messenger RNA codons?",
    "Which battle ended the Hundred Years' War?",
    "thermal conductivity of copper versus silver",
    "Explain lift on an aerofoil with Bernoulli's principle",
    "What is the dielectric constant of PTFE at microwave frequencies?",
    "How does CRISPR-Cas9 find its target sequence?",
    "Which Mersenne primes has GIMPS discovered?",
    "What is the escape velocity from Mars?",
    "UN3090 lithium metal battery transport rules",
    "Which king sealed the Magna Carta?",
    "Explain the Michaelis-Menten equation and what Km means",
    "pH of a saturated calcium hydroxide solution",
    "table of the zeros of Bessel functions",
    "Define habeas corpus",
    "If I'm designing a pressure vessel to ASME Section VIII Division 1, how do I choose "
    "the corrosion allowance and the weld joint efficiency?",
    "Walk me through how the Hubble constant is measured with Cepheid variables and type Ia "
    "supernovae, and why the two methods disagree",
    "Stokes drag on a sphere",
    "Which treaty created the European Coal and Steel Community?",
    # Traditional Chinese.
    "民法上的取得時效要經過幾年？",
    "鋼筋混凝土梁的撓度怎麼計算？",
    "說明DNA聚合酶的校對機制",
    "木星大紅斑為什麼能維持數百年？",
    "專利侵權判斷中的均等論是什麼？",
    "變壓器鐵芯的渦流損失如何降低？",
    "清朝的軍機處是哪一年設立的？",
    "解釋熱力學第二定律與熵的關係",
    "請列出週期表中的鑭系元素",
    "抗凝血劑華法林與哪些藥物有交互作用？",
    "傅立葉轉換在訊號處理上的應用",
    "橋梁伸縮縫的設計規範",
    "羅馬帝國是在哪一年分裂成東西兩部？",
    "刑法上正當防衛的成立要件有哪些？",
    "液壓缸活塞桿的直徑要怎麼選？",
    "光纖通訊的色散補償方法",
    "請說明板塊構造學說",
    "電動車鋰電池的熱失控機制",
    "近體詩的平仄規則是什麼？",
    "碳纖維複合材料的層間剪力強度",
    "震源機制解要怎麼判讀？",
    "如何計算混凝土的水灰比？",
    "公司法規定股東會特別決議的門檻",
    "核磁共振造影的T1與T2加權有什麼差別？",
    "齒輪模數與節圓直徑的關係",
    "請解釋費馬最後定理的證明思路",
    "冷媒R32和R410A的差異",
    "文藝復興時期佛羅倫斯的銀行家族",
    "蛋白質摺疊的能量地形理論",
    "印刷電路板阻抗控制的線寬計算",
    "著作權的合理使用有哪些判斷基準？",
    "臭氧層破洞的化學反應",
    "鐵路道岔轉轍器的結構",
    "維生素B12缺乏會造成哪些神經學症狀？",
    "解釋貝氏定理與先驗機率",
    "鍋爐給水的硬度標準",
    "古埃及吉薩金字塔的建造年代",
    "說明CMOS反相器的工作原理",
    "消防法規對自動撒水頭間距的規定",
    "海洋酸化對珊瑚礁的影響",
    "行政訴訟中撤銷訴訟的要件",
    "超導體的邁斯納效應是什麼？",
    "渦輪增壓器的廢氣旁通閥",
    "土壤液化潛能的判定方法",
    "如何求一個四階矩陣的行列式？",
    "植物的氣孔如何調節蒸散作用？",
    "諾曼第登陸是哪一天？",
    "不鏽鋼304和316的成分差異",
    "聯合國安理會常任理事國的否決權",
    "量測低電阻的四線式接法",
    "請說明凱因斯的乘數效應",
    "抗藥性基因的水平轉移",
    "焊接熱影響區為什麼會硬化？",
    "隧道工程的新奧工法",
    "說明RSA加密的數學基礎",
    "黃金分割比例在古典建築上的應用",
    "火山碎屑流的速度有多快？",
    "什麼是遺產的特留分？",
    "電磁相容測試的輻射發射限值",
    "血紅素的氧解離曲線為何呈S形？",
    "三國時代赤壁之戰的經過",
    "伺服馬達的PID參數要怎麼調？",
    "鹽水的凝固點下降怎麼計算？",
    "光電效應的截止頻率",
    "票據法上的背書連續",
    "大氣平流層有多厚？",
    "液晶面板背光模組的構造",
    "說明哈伯法合成氨的反應條件",
    "柯西-黎曼方程",
    "ABS防鎖死煞車系統的原理",
    "巴哈的平均律鍵盤曲集共有幾首？",
    "細胞凋亡的粒線體路徑",
    "建築物的耐震設計係數怎麼訂？",
    "聯合國海洋法公約的專屬經濟海域",
    "電晶體閘極氧化層的厚度",
    "寫出牛頓冷卻定律的公式",
    "海綿城市的透水鋪面設計",
    "南極冰芯如何重建古氣候？",
    "我想知道設計跨河的預力混凝土橋時，預力鋼鍵的鬆弛損失要怎麼估算？",
    "請比較歐拉法和龍格-庫塔法解常微分方程的誤差",
    "甲骨文",
    "唐朝的均田制",
)
"""One entry per topic: a question, or the questions that ask about the same thing."""


def _questions(topic: str | tuple[str, ...]) -> tuple[str, ...]:
    return (topic,) if isinstance(topic, str) else topic


OFF_TOPIC: tuple[str, ...] = tuple(q for t in _TOPICS for q in _questions(t))
"""Questions about things everyday conversations (LoCoMo's among them) never touch, English and
Traditional Chinese."""

OFF_TOPIC_TRAIN: tuple[str, ...] = tuple(q for t in _TOPICS[0::2] for q in _questions(t))
"""The questions of the topics at even positions: the half a ranker may be trained on."""

OFF_TOPIC_EVAL: tuple[str, ...] = tuple(q for t in _TOPICS[1::2] for q in _questions(t))
"""The questions of the topics at odd positions: for evaluating a ranker only, never for
training or tuning it."""

SYMBOL_QUERIES: tuple[str, ...] = ("*", "🙂", "???", "...", "🎉🎉", "#", "--")
"""Queries with no word in them: a search has nothing to match them by."""


def off_topic_for(texts: Iterable[str]) -> list[str]:
    """The questions of :data:`OFF_TOPIC` none of whose index terms occurs in ``texts``."""
    vocab: set[str] = set()
    for text in texts:
        vocab.update(tokens(text))
    return [q for q in OFF_TOPIC if tokens(q) and not set(tokens(q)) & vocab]
