/** A transcript as lines of text, for comparing what the chat view would show. */
import type { TranscriptItem } from "../src/chat/protocol";

export function summary(items: readonly TranscriptItem[]): string[] {
  return items.map((item) => {
    switch (item.kind) {
      case "user":
        return `user: ${item.text}`;
      case "assistant":
        return `assistant: ${item.blocks.map((b) => `${b.type}=${b.text}`).join(" | ")}`;
      case "tool":
        return `tool ${item.name} [${item.summary}] ${item.status}${item.truncated ? " truncated" : ""}: ${JSON.stringify(item.output)}`;
      case "notice":
        return `notice ${item.level}: ${item.text}`;
      case "approval":
        return `approval ${item.tool} [${item.subject}] ${item.status}${item.reason ? `: ${item.reason}` : ""}`;
    }
  });
}
