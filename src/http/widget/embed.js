// @ts-check
/**
 * <booking-widget event-type-id="et_..." publishable-key="pk_..." api-base="https://host/v1">
 *
 * The booking page as a custom element (decisions §9). It calls only the public API with the
 * publishable key: GET /event-types/{id}, GET /event-types/{id}/fields, GET /availability and
 * POST /bookings (with an Idempotency-Key). Served as-is by GET /embed.js: a classic script, no
 * build step, no dependency; type-checked by tsc (src/http/widget/tsconfig.json) and linted.
 * Styles live in the shadow root, so the host page's CSS neither leaks in nor gets overridden;
 * `--bw-accent`, `--bw-radius` and the `part`s let a host theme it.
 */
(() => {
  const TAG = 'booking-widget';
  if (customElements.get(TAG)) return;

  // api-base defaults to the origin this script was loaded from (captured while it runs).
  const current = document.currentScript;
  const source = current instanceof HTMLScriptElement && current.src ? current : document.querySelector('script[src*="/embed.js"]');
  const SCRIPT_ORIGIN = source instanceof HTMLScriptElement && source.src ? new URL(source.src, location.href).origin : location.origin;

  /** How many days ahead the first free day is looked for (the API allows 62 per request). */
  const SEARCH_DAYS = 30;

  const CSS = `
    :host { display: block; container: widget / inline-size; font: inherit; color: #1d2330; --bw-accent: #1f5fd6; --bw-radius: 8px; }
    :host([hidden]) { display: none; }
    * { box-sizing: border-box; }
    .bw { max-width: 40rem; margin: 0 auto; padding: 1rem; background: #fff; border: 1px solid #d6dae1;
      border-radius: var(--bw-radius); line-height: 1.4; }
    h2 { font-size: 1.25rem; margin: 0 0 .25rem; }
    h3 { font-size: 1rem; margin: 1rem 0 .5rem; }
    p { margin: .25rem 0; }
    .muted { color: #505a6b; }
    label, legend { display: block; font-weight: 600; margin: .75rem 0 .25rem; }
    input, select, textarea, button { font: inherit; font-size: 16px; }
    input:not([type=checkbox]), select, textarea { width: 100%; min-height: 44px; padding: .5rem .625rem;
      border: 1px solid #8a93a3; border-radius: 6px; background: #fff; color: inherit; }
    textarea { min-height: 6rem; }
    fieldset { border: 0; padding: 0; margin: 0; }
    .check { display: flex; align-items: center; gap: .5rem; font-weight: 400; margin: .25rem 0; }
    .check input { width: 1.25rem; height: 1.25rem; }
    button { min-height: 44px; padding: .5rem .875rem; border-radius: 6px; border: 1px solid var(--bw-accent);
      background: #fff; color: var(--bw-accent); cursor: pointer; }
    button:hover { background: #eef3fc; }
    button:disabled { opacity: .5; cursor: not-allowed; }
    button[aria-pressed=true], button.primary { background: var(--bw-accent); color: #fff; }
    :focus-visible { outline: 3px solid #ffb020; outline-offset: 2px; }
    .days { display: grid; grid-template: "prev date next" / auto minmax(0, 1fr) auto; gap: .5rem; align-items: center; }
    #day { grid-area: date; }
    #prev { grid-area: prev; }
    #next { grid-area: next; }
    /* narrow (a phone, or a narrow column of the host page): the date on its own row */
    @container widget (max-width: 26rem) {
      .days { grid-template: "date date" "prev next" / 1fr 1fr; }
    }
    .sr-only { position: absolute; width: 1px; height: 1px; margin: -1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; }
    .slots { display: grid; grid-template-columns: repeat(auto-fill, minmax(5.5rem, 1fr)); gap: .5rem; }
    .primary { width: 100%; margin-top: 1rem; font-weight: 600; }
    .alert { margin-top: .75rem; padding: .625rem .75rem; border-radius: 6px; background: #fdecec; color: #8a1c1c; }
    .done { padding: .75rem; border-radius: 6px; background: #e8f6ee; color: #14532d; }
    .alert:empty { display: none; }
    [hidden] { display: none !important; }
  `;

  /**
   * @typedef {{ start: string, end: string }} Slot
   * @typedef {{ key: string, label: string, type: string, required: boolean, options?: string[] | null }} Field
   * @typedef {{ id: string, name: string, duration: number, description?: string | null, requires_confirmation?: boolean }} EventType
   * @typedef {{ method?: string, query?: Record<string, string>, body?: unknown, idempotencyKey?: string }} CallOptions
   */

  /** A refusal from the API (or no answer at all): `message` is what the visitor reads. */
  class ApiRefusal extends Error {
    /** @param {string} message @param {number} status */
    constructor(message, status) {
      super(message);
      this.status = status;
    }
  }

  /** @param {string} tag @param {Record<string, string | boolean>} [attrs] @param {(Node | string)[]} [children] */
  function el(tag, attrs = {}, children = []) {
    const node = document.createElement(tag);
    for (const [name, value] of Object.entries(attrs)) {
      if (value === false) continue;
      node.setAttribute(name, value === true ? '' : value);
    }
    node.append(...children);
    return node;
  }

  /** A v4 UUID; crypto.randomUUID exists only in secure contexts. */
  function uuid() {
    if (typeof crypto.randomUUID === 'function') return crypto.randomUUID();
    const b = crypto.getRandomValues(new Uint8Array(16));
    b[6] = (b[6] & 0x0f) | 0x40;
    b[8] = (b[8] & 0x3f) | 0x80;
    const h = [...b].map((x) => x.toString(16).padStart(2, '0')).join('');
    return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
  }

  /** The browser's zone first, then every zone the browser knows. */
  function zoneList() {
    const own = Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';
    /** @type {string[]} */
    let all;
    try {
      all = Intl.supportedValuesOf('timeZone');
    } catch {
      all = [
        'UTC',
        'Europe/London',
        'Europe/Berlin',
        'America/New_York',
        'America/Chicago',
        'America/Los_Angeles',
        'Asia/Tokyo',
        'Australia/Sydney',
      ];
    }
    if (!all.includes('UTC')) all = [...all, 'UTC'];
    return [own, ...all.filter((z) => z !== own).sort()];
  }

  /** YYYY-MM-DD of an instant in a zone. @param {Date} instant @param {string} zone */
  function localDate(instant, zone) {
    const parts = new Intl.DateTimeFormat('en-CA', { timeZone: zone, year: 'numeric', month: '2-digit', day: '2-digit' }).formatToParts(
      instant,
    );
    /** @param {string} type */
    const get = (type) => parts.find((p) => p.type === type)?.value ?? '';
    return `${get('year')}-${get('month')}-${get('day')}`;
  }

  /** @param {string} day YYYY-MM-DD @param {number} days */
  function addDays(day, days) {
    const d = new Date(`${day}T12:00:00Z`);
    d.setUTCDate(d.getUTCDate() + days);
    return d.toISOString().slice(0, 10);
  }

  /** "Tuesday 1 December 2026" for a calendar date (no zone involved). @param {string} day */
  function longDay(day) {
    return new Intl.DateTimeFormat(undefined, { timeZone: 'UTC', weekday: 'long', day: 'numeric', month: 'long', year: 'numeric' }).format(
      new Date(`${day}T12:00:00Z`),
    );
  }

  /** HH:MM of an instant in a zone, 24-hour. @param {string} iso @param {string} zone */
  function hhmm(iso, zone) {
    return new Intl.DateTimeFormat('en-GB', { timeZone: zone, hour: '2-digit', minute: '2-digit', hourCycle: 'h23' }).format(new Date(iso));
  }

  class BookingWidget extends HTMLElement {
    static observedAttributes = ['event-type-id', 'publishable-key', 'api-base'];

    constructor() {
      super();
      this.root = this.attachShadow({ mode: 'open' });
      /** @type {Slot[]} */
      this.slots = [];
      /** @type {Slot | null} */
      this.chosen = null;
      /** @type {Field[]} */
      this.fields = [];
      /** @type {EventType | null} */
      this.eventType = null;
      this.zone = 'UTC';
      this.day = '';
      /** Idempotency-Key of the last submission, reused while the same request is sent again. */
      this.attempt = { body: '', key: '' };
      this.loads = 0;
      this.started = false;
    }

    get eventTypeId() {
      return this.getAttribute('event-type-id') ?? '';
    }

    get publishableKey() {
      return this.getAttribute('publishable-key') ?? '';
    }

    get apiBase() {
      return (this.getAttribute('api-base') || `${SCRIPT_ORIGIN}/v1`).replace(/\/+$/, '');
    }

    connectedCallback() {
      if (this.started) return;
      this.started = true;
      this.build();
      void this.start();
    }

    attributeChangedCallback() {
      if (this.started && this.isConnected) void this.start();
    }

    build() {
      const style = el('style');
      style.textContent = CSS;
      const zones = el('select', { id: 'tz' });
      for (const z of zoneList()) zones.append(el('option', { value: z }, [z]));
      this.zone = /** @type {HTMLSelectElement} */ (zones).value;

      this.root.replaceChildren(
        style,
        el('section', { class: 'bw', part: 'container', 'aria-labelledby': 'title' }, [
          el('h2', { id: 'title' }, ['Book a time']),
          el('p', { id: 'meta', class: 'muted' }),
          el('div', { id: 'picker' }, [
            el('label', { for: 'tz' }, ['Time zone']),
            zones,
            el('fieldset', { class: 'days' }, [
              el('legend', {}, ['Day']),
              el('label', { for: 'day', class: 'sr-only' }, ['Date']),
              el('input', { type: 'date', id: 'day' }),
              el('button', { type: 'button', id: 'prev', 'aria-label': 'Previous day' }, ['‹ Previous']),
              el('button', { type: 'button', id: 'next', 'aria-label': 'Next day' }, ['Next ›']),
            ]),
            el('h3', { id: 'slots-title', 'aria-live': 'polite' }),
            el('div', { id: 'slots', class: 'slots', role: 'group', 'aria-labelledby': 'slots-title' }),
            el('p', { id: 'slots-note', class: 'muted', role: 'status' }),
          ]),
          el('form', { id: 'form', hidden: true }, [
            el('h3', { id: 'chosen', tabindex: '-1' }),
            el('div', { id: 'inputs' }),
            el('button', { type: 'submit', id: 'book', class: 'primary' }, ['Book']),
          ]),
          el('div', { id: 'error', class: 'alert', role: 'alert' }),
          el('div', { id: 'done', class: 'done', hidden: true, tabindex: '-1' }),
        ]),
      );

      /** The visitor moves: earlier messages no longer apply. @param {string} day */
      const go = (day) => {
        this.fail('');
        void this.showDay(day);
      };
      zones.addEventListener('change', () => {
        this.zone = /** @type {HTMLSelectElement} */ (zones).value;
        this.chosen = null;
        go(this.day || localDate(new Date(), this.zone));
      });
      this.$('prev').addEventListener('click', () => go(addDays(this.day, -1)));
      this.$('next').addEventListener('click', () => go(addDays(this.day, 1)));
      this.$('day').addEventListener('change', () => {
        const value = this.input('day').value;
        if (value) go(value);
      });
      this.$('form').addEventListener('submit', (event) => {
        event.preventDefault();
        void this.book();
      });
    }

    /** @param {string} id */
    $(id) {
      const node = this.root.getElementById(id);
      if (!node) throw new Error(`booking-widget: no #${id}`);
      return node;
    }

    /** @param {string} id */
    input(id) {
      return /** @type {HTMLInputElement} */ (this.$(id));
    }

    /** @param {string} message */
    fail(message) {
      this.$('error').textContent = message;
    }

    /**
     * One call to the public API with the publishable key.
     * @param {string} path @param {CallOptions} [opts]
     */
    async call(path, opts = {}) {
      const url = new URL(`${this.apiBase}${path}`);
      for (const [k, v] of Object.entries(opts.query ?? {})) url.searchParams.set(k, v);
      /** @type {Record<string, string>} */
      const headers = { Accept: 'application/json', Authorization: `Bearer ${this.publishableKey}` };
      if (opts.body !== undefined) headers['Content-Type'] = 'application/json';
      if (opts.idempotencyKey) headers['Idempotency-Key'] = opts.idempotencyKey;
      let res;
      try {
        res = await fetch(url, {
          method: opts.method ?? 'GET',
          headers,
          body: opts.body === undefined ? undefined : JSON.stringify(opts.body),
        });
      } catch {
        // no answer the page may read: the network, or a refusal of this page's origin, which
        // the service sends without Access-Control-Allow-Origin, so the browser hides its message
        throw new ApiRefusal(
          "The booking service could not be reached from this page. Check your connection and try again; if this persists, this page's origin may not be allowed for this key.",
          0,
        );
      }
      const json = await res.json().catch(() => null);
      if (!res.ok) throw new ApiRefusal(json?.error?.message ?? `The booking service answered HTTP ${res.status}.`, res.status);
      return json;
    }

    async start() {
      const load = ++this.loads;
      this.fail('');
      if (!this.eventTypeId || !this.publishableKey) {
        this.fail('This booking page is missing its event-type-id or publishable-key.');
        return;
      }
      if (!this.publishableKey.startsWith('pk_')) {
        this.fail('This booking page needs a publishable key (pk_...); a secret key must never be put in a web page.');
        return;
      }
      try {
        const id = encodeURIComponent(this.eventTypeId);
        const [type, form] = await Promise.all([this.call(`/event-types/${id}`), this.call(`/event-types/${id}/fields`)]);
        if (load !== this.loads) return;
        this.eventType = type.event_type;
        this.fields = form.custom_fields;
        const et = /** @type {EventType} */ (this.eventType);
        this.$('title').textContent = et.name;
        this.$('meta').textContent = `${et.duration} minutes${et.description ? ` · ${et.description}` : ''}`;
        this.buildInputs();
        await this.showDay(await this.firstFreeDay());
      } catch (err) {
        if (load === this.loads) this.fail(err instanceof Error ? err.message : String(err));
      }
    }

    /** Today in the chosen zone, or the first day within SEARCH_DAYS that has a free slot. */
    async firstFreeDay() {
      const today = localDate(new Date(), this.zone);
      const res = await this.call('/availability', {
        query: { event_type_id: this.eventTypeId, start_date: today, end_date: addDays(today, SEARCH_DAYS - 1), timezone: this.zone },
      });
      /** @type {Slot[]} */
      const slots = res.slots;
      return slots.length > 0 ? localDate(new Date(slots[0].start), this.zone) : today;
    }

    /** @param {string} wanted YYYY-MM-DD */
    async showDay(wanted) {
      const today = localDate(new Date(), this.zone);
      this.day = wanted < today ? today : wanted;
      this.input('day').value = this.day;
      this.input('day').min = today;
      /** @type {HTMLButtonElement} */ (this.$('prev')).disabled = this.day <= today;
      this.$('slots-title').textContent = `${longDay(this.day)} (${this.zone})`;
      this.$('slots').replaceChildren();
      this.$('slots-note').textContent = 'Loading free times…';
      const load = this.loads;
      const day = this.day;
      try {
        const res = await this.call('/availability', {
          query: { event_type_id: this.eventTypeId, start_date: day, end_date: day, timezone: this.zone },
        });
        if (load !== this.loads || day !== this.day) return;
        this.slots = res.slots;
      } catch (err) {
        if (load !== this.loads || day !== this.day) return;
        this.slots = [];
        this.fail(err instanceof Error ? err.message : String(err));
      }
      this.renderSlots();
    }

    renderSlots() {
      const end = (/** @type {Slot} */ s) => hhmm(s.end, this.zone);
      const buttons = this.slots.map((slot) => {
        const start = hhmm(slot.start, this.zone);
        const pressed = this.chosen?.start === slot.start;
        const b = el('button', { type: 'button', 'aria-pressed': String(pressed), 'aria-label': `${start} to ${end(slot)}` }, [start]);
        b.addEventListener('click', () => this.choose(slot));
        return b;
      });
      this.$('slots').replaceChildren(...buttons);
      this.$('slots-note').textContent = this.slots.length === 0 ? 'No free times on this day. Try the next day.' : '';
      if (this.chosen && !this.slots.some((s) => s.start === this.chosen?.start)) this.chosen = null;
      this.$('form').hidden = !this.chosen;
    }

    /** @param {Slot} slot */
    choose(slot) {
      this.chosen = slot;
      this.fail('');
      this.renderSlots();
      const when = `${longDay(localDate(new Date(slot.start), this.zone))}, ${hhmm(slot.start, this.zone)}–${hhmm(slot.end, this.zone)} (${this.zone})`;
      this.$('chosen').textContent = when;
      this.$('book').textContent = `Book ${hhmm(slot.start, this.zone)}`;
      this.$('form').hidden = false;
      this.input('f-name').focus();
    }

    /** Name, Email, Phone, then each custom field as /event-types/{id}/fields describes it. */
    buildInputs() {
      /** @param {string} label @param {boolean} required */
      const text = (label, required) => (required ? label : `${label} (optional)`);
      const nodes = [
        el('label', { for: 'f-name' }, ['Name']),
        el('input', { id: 'f-name', name: 'name', autocomplete: 'name', required: true, maxlength: '200' }),
        el('label', { for: 'f-email' }, ['Email']),
        el('input', { id: 'f-email', name: 'email', type: 'email', autocomplete: 'email', required: true, maxlength: '254' }),
        el('label', { for: 'f-phone' }, [text('Phone', false)]),
        el('input', { id: 'f-phone', name: 'phone', type: 'tel', autocomplete: 'tel' }),
      ];
      this.fields.forEach((field, i) => {
        const id = `f-custom-${i}`;
        const options = field.options ?? [];
        switch (field.type) {
          case 'SELECT': {
            const select = el('select', { id, required: field.required }, [el('option', { value: '' }, ['Choose…'])]);
            for (const o of options) select.append(el('option', { value: o }, [o]));
            nodes.push(el('label', { for: id }, [text(field.label, field.required)]), select);
            break;
          }
          case 'MULTISELECT': {
            const boxes = options.map((o, j) =>
              el('label', { class: 'check', for: `${id}-${j}` }, [el('input', { type: 'checkbox', id: `${id}-${j}`, value: o }), o]),
            );
            nodes.push(el('fieldset', { id }, [el('legend', {}, [text(field.label, field.required)]), ...boxes]));
            break;
          }
          case 'BOOLEAN':
            nodes.push(el('label', { class: 'check', for: id }, [el('input', { type: 'checkbox', id }), field.label]));
            break;
          case 'TEXTAREA':
            nodes.push(
              el('label', { for: id }, [text(field.label, field.required)]),
              el('textarea', { id, required: field.required, maxlength: '5000' }),
            );
            break;
          default: {
            const type = { NUMBER: 'number', EMAIL: 'email', PHONE: 'tel', DATE: 'date' }[field.type] ?? 'text';
            const attrs = {
              id,
              type,
              required: field.required,
              ...(field.type === 'TEXT' ? { maxlength: '500' } : {}),
              ...(type === 'number' ? { step: 'any' } : {}),
            };
            nodes.push(el('label', { for: id }, [text(field.label, field.required)]), el('input', attrs));
          }
        }
      });
      this.$('inputs').replaceChildren(...nodes);
    }

    /** custom_fields as the API takes them: typed values, blank optional fields left out. */
    customValues() {
      /** @type {Record<string, unknown>} */
      const values = {};
      this.fields.forEach((field, i) => {
        const id = `f-custom-${i}`;
        if (field.type === 'MULTISELECT') {
          const picked = [...this.$(id).querySelectorAll('input:checked')].map((x) => /** @type {HTMLInputElement} */ (x).value);
          if (picked.length > 0 || field.required) values[field.key] = picked;
          return;
        }
        const input = /** @type {HTMLInputElement} */ (this.$(id));
        if (field.type === 'BOOLEAN') values[field.key] = input.checked;
        else if (input.value.trim() === '') return;
        else values[field.key] = field.type === 'NUMBER' ? Number(input.value) : input.value;
      });
      return values;
    }

    async book() {
      const slot = this.chosen;
      if (!slot) return;
      const phone = this.input('f-phone').value.trim();
      const body = {
        event_type_id: this.eventTypeId,
        requested_time: slot.start,
        attendee: {
          name: this.input('f-name').value.trim(),
          email: this.input('f-email').value.trim(),
          ...(phone ? { phone } : {}),
          timezone: this.zone,
        },
        custom_fields: this.customValues(),
      };
      // The same request sent again (after a lost answer) keeps its key, so it cannot book twice.
      const text = JSON.stringify(body);
      if (text !== this.attempt.body) this.attempt = { body: text, key: uuid() };
      const button = /** @type {HTMLButtonElement} */ (this.$('book'));
      button.disabled = true;
      this.$('form').setAttribute('aria-busy', 'true');
      this.fail('');
      try {
        const res = await this.call('/bookings', { method: 'POST', body, idempotencyKey: this.attempt.key });
        this.done(res.booking);
      } catch (err) {
        this.fail(err instanceof Error ? err.message : String(err));
        // A taken slot: show the day as it is now, keeping what the visitor typed.
        if (err instanceof ApiRefusal && err.status === 409) void this.showDay(this.day);
      } finally {
        button.disabled = false;
        this.$('form').removeAttribute('aria-busy');
      }
    }

    /** @param {{ id: string, status: string, start_time: string, end_time: string, attendee: { email: string } }} booking */
    done(booking) {
      const when = `${longDay(localDate(new Date(booking.start_time), this.zone))}, ${hhmm(booking.start_time, this.zone)}–${hhmm(booking.end_time, this.zone)} (${this.zone})`;
      const what = this.eventType?.name ?? 'Your meeting';
      // a new booking answers DRAFT (routing runs after the 201): the event type says whether the
      // host must confirm it
      const message =
        booking.status === 'PENDING_CONFIRMATION' || this.eventType?.requires_confirmation === true
          ? `Request received: ${what} on ${when}. It will be confirmed by the host; you will get an email at ${booking.attendee.email}.`
          : `You're booked: ${what} on ${when}. A confirmation is on its way to ${booking.attendee.email}.`;
      const done = this.$('done');
      done.replaceChildren(el('p', {}, [message]), el('p', { class: 'muted' }, [`Reference: ${booking.id}`]));
      done.hidden = false;
      this.$('picker').hidden = true;
      this.$('form').hidden = true;
      done.focus();
    }
  }

  customElements.define(TAG, BookingWidget);
})();
