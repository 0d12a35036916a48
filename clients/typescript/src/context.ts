// The context window and summary of a session, ready for a model API.
import type { components } from "./openapi.js";
import type { OpenAIMessage, WireMessage } from "./types.js";

type ContextOut = components["schemas"]["ContextOut"];

/**
 * What to send before the new user input: the window (each message with its time header) and,
 * when a summary exists, the system prompt that explains it and the user message that carries
 * it. `toOpenAI()` and `toAnthropic()` give it in each API's shape; append the new input.
 */
export class Context {
  readonly session: string;
  /** Window messages, then the summary's message: what goes before the new user input. */
  readonly messages: WireMessage[];
  readonly summary: Record<string, unknown> | null;
  /** `llm` (written by a model) or `digest`; `null` without a summary. */
  readonly summaryKind: string | null;
  /** Explains the summary to the model; empty without a summary. */
  readonly systemPrompt: string;
  /** The user message that carries the summary (last of `messages`), if any. */
  readonly turnContext: string | null;
  /** Messages older than the window that the summary does not cover yet (0 when it covers
   * them all): above 0, `summarize(session)` brings them in. */
  readonly unsummarized: number;

  constructor(answer: ContextOut) {
    this.session = answer.session;
    this.messages = (answer.messages as { role: string; content: string }[])
      .map((m) => ({ role: m.role === "assistant" ? "assistant" : "user", content: m.content }));
    this.summary = answer.summary;
    this.summaryKind = answer.summary_kind;
    this.systemPrompt = answer.system_prompt ?? "";
    this.turnContext = answer.turn_context;
    this.unsummarized = answer.unsummarized ?? 0;
  }

  private system(own: string | undefined): string {
    return [own ?? "", this.systemPrompt].filter((part) => part).join("\n\n");
  }

  /** `[system, ...window, summary message]` for Chat Completions; `system` goes first. */
  toOpenAI(system?: string): OpenAIMessage[] {
    const text = this.system(system);
    const head: OpenAIMessage[] = text ? [{ role: "system", content: text }] : [];
    return [...head, ...this.messages.map((m) => ({ ...m }))];
  }

  /** `{system, messages}` for Anthropic's Messages API. */
  toAnthropic(system?: string): { system: string; messages: WireMessage[] } {
    return { system: this.system(system), messages: this.messages.map((m) => ({ ...m })) };
  }
}
