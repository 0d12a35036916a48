import { MemoryClient } from "memstrata";

const mem = new MemoryClient({ baseUrl: "http://127.0.0.1:8765", apiKey: process.env.MEMSTRATA_KEY ?? "" });

export async function reply(session: string, input: string): Promise<string> {
  const ctx = await mem.context(session, { query: input });
  const answer = await fetch("https://api.openai.com/v1/chat/completions", {
    method: "POST",
    headers: { "Content-Type": "application/json", Authorization: `Bearer ${process.env.OPENAI_API_KEY}` },
    body: JSON.stringify({ model: "gpt-4o-mini",
      messages: [...ctx.toOpenAI("You plan trips."), { role: "user", content: input }] }),
  }).then((r) => r.json());
  const text: string = answer.choices[0].message.content;
  await mem.addMany(session, [{ role: "user", content: input }, { role: "assistant", content: text }]);
  return text;
}
