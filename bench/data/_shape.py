"""The shape of a retrieval set's JSON (``bench/_sets.py`` reads it), shared by the scripts
that write the sets."""

from typing import TypedDict

__all__ = ["Conversation", "Message", "Question", "Session"]


class Message(TypedDict):
    role: str
    sender: str
    text: str


class Session(TypedDict):
    date: str
    messages: list[Message]


class Question(TypedDict):
    question: str
    evidence: list[str]
    lang: str
    kind: str


class Conversation(TypedDict):
    id: str
    sessions: list[Session]
    questions: list[Question]
