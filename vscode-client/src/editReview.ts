/**
 * Edit review: an edit or write the chat asks about (`pi/approve` with `proposed`) opens in the
 * diff editor — the file as the editor has it on the left, the proposed text (a read-only virtual
 * document) on the right — with Accept and Reject in the editor's title bar, beside the chat
 * card's buttons. Accepting makes the proposed text the file's content through one workspace edit
 * (Undo takes it back) and saves it; the server is then told `applied` and checks the file.
 *
 * A buffer with unsaved changes that differ from the disk was not seen by the agent (it read the
 * file on disk): the user is told so before the change replaces them, never silently.
 */
import type { Disposable, Uri } from "./vscodeapi";
import {
  closeDiffs,
  diskText,
  fileUri,
  openBuffer,
  openDiff,
  registerCommand,
  registerTextDocumentContentProvider,
  replaceFileText,
  showModalWarning,
  uriFrom,
} from "./vscodeapi";

export const PROPOSAL_SCHEME = "pi-lsp-proposal";
export const REVIEW_COMMANDS = { accept: "pi-lsp.review.accept", reject: "pi-lsp.review.reject" } as const;
export const ACCEPT_UNSAVED = "Accept and save";

/** One proposed change of one file. */
export interface Proposal {
  /** The chat card's id: one review per card. */
  id: string;
  /** The file's absolute path. */
  path: string;
  /** The file as the model named it (for titles). */
  displayPath: string;
  /** The whole text the file holds after the change. */
  proposed: string;
  newFile: boolean;
  tool: string;
}

export type ReviewChoice = "accept" | "reject";
/** What accepting did: applied (and saved), cancelled by the user, or failed with a message. */
export type ApplyOutcome = { kind: "applied" } | { kind: "cancelled" } | { kind: "failed"; message: string };

/** What the chat needs of the review (a fake in tests that do not look at the editor). */
export interface EditReviewer {
  /** Show the diff; `choose` is called when the user presses Accept or Reject in its title bar. */
  open(proposal: Proposal, choose: (choice: ReviewChoice) => void): Promise<void>;
  /** Apply the proposal to the file (the user may be asked first). */
  apply(proposal: Proposal): Promise<ApplyOutcome>;
  /** The question is answered or withdrawn: close its diff. */
  close(id: string): void;
  /** A change already made: `before` (null: the file did not exist) against the file now. */
  showMade(path: string, before: string | null, title: string): Promise<void>;
}

export class EditReview implements EditReviewer {
  private readonly open_ = new Map<string, { proposal: Proposal; choose: (choice: ReviewChoice) => void }>();
  /** Texts before a made change, by file path (the left side of its review). */
  private readonly befores = new Map<string, string>();

  /** The content provider and the title-bar commands. */
  register(): Disposable[] {
    return [
      registerTextDocumentContentProvider(PROPOSAL_SCHEME, {
        provideTextDocumentContent: (uri: Uri) => {
          if (uri.query === "before") return this.befores.get(uri.path) ?? "";
          return this.open_.get(idOf(uri))?.proposal.proposed ?? (uri.query === "empty" ? "" : "(this proposal was answered)");
        },
      }),
      registerCommand(REVIEW_COMMANDS.accept, (uri?: unknown) => this.choose(uri, "accept")),
      registerCommand(REVIEW_COMMANDS.reject, (uri?: unknown) => this.choose(uri, "reject")),
    ];
  }

  async open(proposal: Proposal, choose: (choice: ReviewChoice) => void): Promise<void> {
    this.open_.set(proposal.id, { proposal, choose });
    const left = proposal.newFile ? uriFrom({ scheme: PROPOSAL_SCHEME, path: proposal.path, query: "empty" }) : fileUri(proposal.path);
    const verb = proposal.newFile ? "new file" : proposal.tool === "write" ? "replacement" : "edit";
    await openDiff(left, proposalUri(proposal), `${proposal.displayPath} (proposed ${verb})`);
  }

  async apply(proposal: Proposal): Promise<ApplyOutcome> {
    const uri = fileUri(proposal.path);
    const onDisk = await diskText(uri);
    const buffer = openBuffer(uri);
    if (buffer !== undefined && buffer.dirty && buffer.text !== stripBom(onDisk ?? "")) {
      const answer = await showModalWarning(
        `${proposal.displayPath} has unsaved changes the agent did not see.`,
        "The agent's change was made from the file on disk. Accepting replaces the editor's text with it and saves the file; Undo brings your text back.",
        ACCEPT_UNSAVED,
      );
      if (answer !== ACCEPT_UNSAVED) return { kind: "cancelled" };
    }
    try {
      const done = await replaceFileText(uri, proposal.proposed, onDisk === undefined && buffer === undefined);
      return done ? { kind: "applied" } : { kind: "failed", message: `the editor did not apply or save the change to ${proposal.displayPath}` };
    } catch (error) {
      return { kind: "failed", message: error instanceof Error ? error.message : String(error) };
    }
  }

  close(id: string): void {
    const review = this.open_.get(id);
    if (review === undefined) return;
    this.open_.delete(id);
    void closeDiffs(proposalUri(review.proposal)).then(undefined, () => undefined);
  }

  async showMade(path: string, before: string | null, title: string): Promise<void> {
    this.befores.set(path, before ?? "");
    const left = uriFrom({ scheme: PROPOSAL_SCHEME, path, query: "before" });
    await openDiff(left, fileUri(path), title);
  }

  /** A title-bar button: `uri` is the diff's right side (or nothing: the only open review). */
  private choose(uri: unknown, choice: ReviewChoice): void {
    const id = isUri(uri) && uri.scheme === PROPOSAL_SCHEME ? idOf(uri) : this.open_.size === 1 ? [...this.open_.keys()][0]! : "";
    this.open_.get(id)?.choose(choice);
  }
}

function proposalUri(proposal: Proposal): Uri {
  return uriFrom({ scheme: PROPOSAL_SCHEME, path: proposal.path, query: `id=${encodeURIComponent(proposal.id)}` });
}

function idOf(uri: Uri): string {
  return uri.query.startsWith("id=") ? decodeURIComponent(uri.query.slice(3)) : "";
}

function isUri(value: unknown): value is Uri {
  return typeof value === "object" && value !== null && "scheme" in value && "query" in value;
}

function stripBom(text: string): string {
  return text.startsWith("\ufeff") ? text.slice(1) : text;
}
