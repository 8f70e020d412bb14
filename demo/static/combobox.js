// The page's comboboxes (the search box's completions, the author and category pickers), by the
// ARIA combobox pattern: a text box owning a listbox whose active option aria-activedescendant names.
/** Options load after a pause in typing this long (ms), so that a word typed is one request. */
const PAUSE = 120;
export class Combobox {
    spec;
    pending = null;
    timer = 0;
    shown = [];
    constructor(spec) {
        this.spec = spec;
        const { input, listbox } = spec;
        input.addEventListener("input", () => this.schedule(PAUSE));
        input.addEventListener("keydown", (ev) => this.key(ev));
        input.addEventListener("click", () => {
            if (spec.openEmpty && listbox.hidden)
                this.schedule(0);
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
    schedule(delay) {
        clearTimeout(this.timer);
        this.timer = setTimeout(() => void this.fill(), delay);
    }
    async fill() {
        const { input, listbox, load } = this.spec;
        this.pending?.abort();
        const text = input.value.trim();
        if (!text && !this.spec.openEmpty)
            return this.close();
        const ctl = (this.pending = new AbortController());
        const options = await load(text, ctl.signal);
        if (ctl.signal.aborted || !options)
            return;
        // An answer that lands after the person chose an option keeps that option chosen.
        const chosen = listbox.querySelector('[aria-selected="true"]')?.dataset.value;
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
            if (active)
                input.setAttribute("aria-activedescendant", li.id);
            return li;
        }));
        listbox.hidden = options.length === 0;
        input.setAttribute("aria-expanded", String(!listbox.hidden));
    }
    pick(o) {
        this.close();
        this.spec.choose(o);
    }
    key(ev) {
        const { listbox, openEmpty } = this.spec;
        if (listbox.hidden) {
            if (ev.key === "ArrowDown" && openEmpty) {
                ev.preventDefault();
                this.schedule(0);
            }
            return;
        }
        const options = [...listbox.querySelectorAll("li")];
        const at = options.findIndex((o) => o.getAttribute("aria-selected") === "true");
        let next;
        if (ev.key === "ArrowDown")
            next = (at + 1) % options.length;
        else if (ev.key === "ArrowUp")
            next = (at - 1 + options.length) % options.length;
        else if (ev.key === "Escape") {
            ev.preventDefault();
            return this.close();
        }
        else if (ev.key === "Enter" && at >= 0) {
            // Enter goes on to submit the form, with the option chosen.
            return this.pick(this.shown[at]);
        }
        else
            return;
        ev.preventDefault();
        options.forEach((o, i) => o.setAttribute("aria-selected", String(i === next)));
        this.spec.input.setAttribute("aria-activedescendant", options[next].id);
        options[next].scrollIntoView({ block: "nearest" });
    }
}
