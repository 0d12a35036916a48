"""Off-topic questions for the abstention benchmark (written for memstrata, not from LoCoMo).

Each asks about something a LoCoMo conversation never mentions. :func:`off_topic_for` keeps,
per conversation, only the questions none of whose index terms (stemmed words, CJK pairs, as
the in-memory BM25 splits them) occurs in that conversation, so a question counts as off-topic
only where its content words appear nowhere; a search that returns a matched hit for one of
them has returned filler.
"""

from __future__ import annotations

from collections.abc import Iterable

from memstrata.search._bm25 import tokens

__all__ = ["OFF_TOPIC", "SYMBOL_QUERIES", "off_topic_for"]

OFF_TOPIC: tuple[str, ...] = (
    "quantum chromodynamics lattice",
    "What is the torque specification for the cylinder head bolts?",
    "How do I configure a Kubernetes ingress controller with TLS?",
    "Which mutual fund has the lowest expense ratio for bonds?",
    "Explain the Krebs cycle and oxidative phosphorylation",
    "What's the capital gains tax rate on cryptocurrency?",
    "How many milligrams of ibuprofen can a toddler take?",
    "Who won the 1987 Formula One championship?",
    "What's the syntax for a recursive CTE in PostgreSQL?",
    "How do I descale an espresso machine boiler?",
    "When does the warranty on the dishwasher expire?",
    "What is the airspeed velocity of an unladen swallow?",
    "Recommend a firmware update for the router's VPN",
    "How do you calculate the eigenvalues of a Hermitian matrix?",
    "What did the plumber quote for replacing the water heater?",
    "Which ferry runs from Helsinki to Tallinn?",
    "Summarize the Treaty of Westphalia",
    "How much does a cubic metre of concrete weigh?",
    "What is the melting point of tungsten?",
    "Compare SSD endurance ratings: TBW versus DWPD",
    "What's the password policy for the payroll system?",
    "Which antibiotic treats streptococcal pharyngitis?",
    "How do I rebase a forked repository onto upstream?",
    "When is the quarterly VAT return due?",
    "What's the dosage of metformin for prediabetes?",
    "How do cephalopods change skin colour?",
    "What is the boiling point of liquid nitrogen?",
    "Which crankshaft bearing clearance is recommended?",
    "How to solder surface-mount resistors?",
    "What's the latency of the Tokyo stock exchange matching engine?",
    "Explain Byzantine fault tolerance in blockchain consensus",
    "How many calories are in a croissant?",
    "Who invented the stethoscope?",
    "What torque wrench fits lug nuts on a pickup truck?",
    "Describe the mating ritual of albatrosses",
    "What is the half-life of carbon-14?",
    "How do I appeal a parking fine in Rotterdam?",
    "Which cryptographic hash replaced SHA-1 in Git?",
    "What's the mortgage amortization schedule for a thirty-year loan?",
    "Give me the chord progression of a twelve-bar blues in E",
    "How thick should drywall be for a ceiling?",
    "What causes aurora borealis?",
    "How do I renew a Norwegian driving licence?",
    "Which semiconductor fab produces three-nanometre wafers?",
    "What is the Nyquist frequency of a 44.1 kHz signal?",
    "How do submarines regulate buoyancy with ballast tanks?",
    "What's the spreadsheet formula for compound interest?",
    "How are zeolites used in detergent?",
    "Which glacier is retreating fastest in Patagonia?",
    "What's the firmware checksum of the thermostat?",
    "Kubernetes ingress TLS certificate rotation",
    "PostgreSQL vacuum autovacuum thresholds",
    "mitochondrial ATP synthase stoichiometry",
    "cylinder head gasket torque sequence",
    "Byzantine quorum certificates in Tendermint",
    "ibuprofen paracetamol toddler dosage",
    "Helsinki Tallinn ferry timetable",
    "tungsten carbide drill bits for masonry",
    "Nyquist sampling aliasing filter",
    "municipal zoning variance appeal procedure",
    "thermostat firmware checksum mismatch",
    "eigenvalue decomposition of Hermitian matrices",
    "compound interest spreadsheet formula",
    "zeolite ion exchange in detergents",
    "carbon-14 radiometric dating half-life",
    "stethoscope diaphragm versus bell",
    "albatross courtship dance",
    "Patagonian glacier retreat measurements",
    "semiconductor lithography EUV wafers",
    "submarine ballast tank buoyancy",
    "量子色動力學的晶格計算",
    "洗碗機的保固什麼時候到期？",
    "請說明光合作用的暗反應",
    "房屋貸款的利率是多少？",
    "汽缸蓋螺絲的扭力規格",
    "股票期權的履約價怎麼算？",
    "鈦合金的熔點是多少？",
    "區塊鏈共識演算法的拜占庭容錯",
    "印表機碳粉匣要去哪裡換？",
    "颱風的氣壓梯度如何計算？",
    "甲狀腺功能檢查的數值",
    "半導體晶圓廠的良率",
)
"""Questions about things the LoCoMo conversations never touch (English and Chinese)."""

SYMBOL_QUERIES: tuple[str, ...] = ("*", "🙂", "???", "...", "🎉🎉", "#", "--")
"""Queries with no word in them: a search has nothing to match them by."""


def off_topic_for(texts: Iterable[str]) -> list[str]:
    """The questions of :data:`OFF_TOPIC` none of whose index terms occurs in ``texts``."""
    vocab: set[str] = set()
    for text in texts:
        vocab.update(tokens(text))
    return [q for q in OFF_TOPIC if tokens(q) and not set(tokens(q)) & vocab]
