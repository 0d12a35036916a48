import { MemoryClient, type OpenAIMessage } from "memstrata";

const mem = new MemoryClient({
  baseUrl: process.env.MEMSTRATA_URL ?? "http://127.0.0.1:8765",
  apiKey: process.env.MEMSTRATA_KEY ?? "",
});

// Stands in for a real model call (OpenAI, Anthropic, a local server …).
async function llm(messages: OpenAIMessage[]): Promise<string> {
  const input = messages.at(-1)?.content ?? "";
  return `Noted (${messages.length} in context): ${input}`;
}

async function turn(session: string, input: string): Promise<string> {
  const ctx = await mem.context(session, { query: input }); // window + rolling summary
  const found = await mem.search(input, { session, limit: 3 }); // older messages that fit
  const notes = found.hits.filter((h) => h.matched).map((h) => `- ${h.message.content}`);
  const system = notes.length ? `Earlier in this conversation:\n${notes.join("\n")}` : "";
  const reply = await llm([...ctx.toOpenAI(system), { role: "user", content: input }]);
  await mem.addMany(session, [
    { role: "user", content: input },
    { role: "assistant", content: reply },
  ]);
  return reply;
}

for (const input of ["I'd like to visit Hualien.", "Book the 9 am train.", "Where am I going?"]) {
  console.log(`> ${input}\n${await turn("trip", input)}`);
}
const { messages } = await mem.messages("trip");
console.log(`${messages.length} messages stored, the newest at ${messages[0]?.at} ns`);
