// The page's comboboxes (the search box's completions, the author and category pickers), by the
// ARIA combobox pattern: a text box owning a listbox whose active option aria-activedescendant names.

/** One choice of a listbox; count, when given, is shown after the text. */
export interface Option {
  value: string;
  text: string;
  count?: number;
}

export interface ComboboxSpec {
  input: HTMLInputElement;
  listbox: HTMLUListElement;
  /** The options for the text typed; null when the request failed or was cancelled (the loader
   * shows its own errors). */
  load: (text: string, signal: AbortSignal) => Promise<Option[] | null>;
  /** The person chose o (Enter on the active option, or a click); the form is submitted next. */
  choose: (o: Option) => void;
  /** Whether an empty text still lists options (a picker's biggest entries) and a click or the
   * down arrow opens the listbox before anything is typed. */
  openEmpty?: boolean;
}

/** Options load after a pause in typing this long (ms), so that a word typed is one request. */
const PAUSE = 120;

export class Combobox {
  private pending: AbortController | null = null;
  private timer = 0;
  private shown: Option[] = [];

  constructor(private readonly spec: ComboboxSpec) {
    const { input, listbox } = spec;
    input.addEventListener("input", () => this.schedule(PAUSE));
    input.addEventListener("keydown", (ev) => this.key(ev));
    input.addEventListener("click", () => {
      if (spec.openEmpty && listbox.hidden) this.schedule(0);
    });
    input.addEventListener("blur", () => setTimeout(() => this.close(), 100));
  }

  close() {
    clearTimeout(this.timer);
    this.pending?.abort();
    this.spec.listbox.hidden = true;
    this.spec.listbox.replaceChildren();
    this.shown = [];
    this.spec.input.setAttribute("aria-expanded", "false");
    this.spec.input.removeAttribute("aria-activedescendant");
  }

  private schedule(delay: number) {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.fill(), delay);
  }

  private async fill() {
    const { input, listbox, load } = this.spec;
    this.pending?.abort();
    const text = input.value.trim();
    if (!text && !this.spec.openEmpty) return this.close();
    const ctl = (this.pending = new AbortController());
    const options = await load(text, ctl.signal);
    if (ctl.signal.aborted || !options) return;
    // An answer that lands after the person chose an option keeps that option chosen.
    const chosen = listbox.querySelector<HTMLElement>('[aria-selected="true"]')?.dataset.value;
    input.removeAttribute("aria-activedescendant");
    this.shown = options;
    listbox.replaceChildren(...options.map((o, i) => {
      const li = document.createElement("li");
      li.id = `${listbox.id}-${i}`;
      li.setAttribute("role", "option");
      li.dataset.value = o.value;
      li.append(o.text);
      if (o.count !== undefined) {
        const count = document.createElement("span");
        count.className = "count";
        count.textContent = ` (${o.count})`;
        li.append(count);
      }
      li.addEventListener("mousedown", (ev) => {
        ev.preventDefault();
        this.pick(o);
        input.form?.requestSubmit();
      });
      const active = o.value === chosen;
      li.setAttribute("aria-selected", String(active));
      if (active) input.setAttribute("aria-activedescendant", li.id);
      return li;
    }));
    listbox.hidden = options.length === 0;
    input.setAttribute("aria-expanded", String(!listbox.hidden));
  }

  private pick(o: Option) {
    this.close();
    this.spec.choose(o);
  }

  private key(ev: KeyboardEvent) {
    const { listbox, openEmpty } = this.spec;
    if (listbox.hidden) {
      if (ev.key === "ArrowDown" && openEmpty) {
        ev.preventDefault();
        this.schedule(0);
      }
      return;
    }
    const options = [...listbox.querySelectorAll<HTMLLIElement>("li")];
    const at = options.findIndex((o) => o.getAttribute("aria-selected") === "true");
    let next: number;
    if (ev.key === "ArrowDown") next = (at + 1) % options.length;
    else if (ev.key === "ArrowUp") next = (at - 1 + options.length) % options.length;
    else if (ev.key === "Escape") {
      ev.preventDefault();
      return this.close();
    } else if (ev.key === "Enter" && at >= 0) {
      // Enter goes on to submit the form, with the option chosen.
      return this.pick(this.shown[at]);
    } else return;
    ev.preventDefault();
    options.forEach((o, i) => o.setAttribute("aria-selected", String(i === next)));
    this.spec.input.setAttribute("aria-activedescendant", options[next].id);
    options[next].scrollIntoView({ block: "nearest" });
  }
}
