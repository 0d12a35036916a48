"""Adapters for agent frameworks, one module each, each behind its own optional extra.

Nothing here imports a framework: import the adapter module you need, for example
``from memstrata.adapters.langchain import MemstrataChatMessageHistory``.
"""
