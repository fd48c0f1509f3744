/**
 * The in-page half of `waitForChange`: a change monitor installed once per document under
 * `Symbol.for('e2e.changes')`. It counts what could change the screen — DOM mutations (not
 * clock ticks, timers or script/style nodes), input, focus, hover, finished transitions,
 * history and frame loads — so the engine can wait for the next change, or for quiet,
 * without observing. Like the walk, it is sent as source text and must not use outer names.
 */

/** Ticking rules handed in from `step/screen-text.ts` (`TICKING_RULES`). */
export interface ChangeMonitorArguments {
  /** Regex source of a clock time (flags `g`). */
  clockTime: string;
  /** Regex source of a duration (flags `gi`). */
  duration: string;
  /** Roles whose content ticks by design. */
  roles: readonly string[];
  /** Attributes the engine itself writes (screenshot masks): never a change. */
  ownAttributes: readonly string[];
}

/** The monitor's state as the page reports it; short keys keep the answer small. */
export interface PageChangeState {
  /** The mark: document id and change count. */
  m: string;
  /** Milliseconds since the last change (or since the monitor was installed). */
  q: number;
  /** True while the document is still loading. */
  l: boolean;
}

/** What the page exposes under `Symbol.for('e2e.changes')`. */
export interface PageChangeMonitor {
  /** The current mark (pending mutation records counted first). */
  mark(): string;
  /** Watch a shadow root or a same-origin frame's document too (the walk calls this). */
  watch(root: Node): void;
  /** Resolve once the mark differs from `since` (`change`) or nothing changed for `quietMs` (`quiet`), or after `timeoutMs`. */
  wait(since: string, until: 'change' | 'quiet', quietMs: number, timeoutMs: number): Promise<PageChangeState>;
  /** Resolve every pending wait now; returns the state. */
  release(): PageChangeState;
}

/** The page's clock and timers as the monitor uses them. */
export interface MonitorClock {
  now: () => number;
  setTimer: (handler: () => void, milliseconds: number) => number;
  clearTimer: (timer: number) => void;
}

/**
 * In page: the document's change monitor, installed on first use. `clock`: the page's clock and
 * timers taken before any script of the page ran (the context's init script); default, as they are now.
 */
export function installChangeMonitor(args: ChangeMonitorArguments, clock?: MonitorClock): PageChangeMonitor {
  const key = Symbol.for('e2e.changes');
  const host = window as unknown as Record<symbol, PageChangeMonitor | undefined>;
  const existing = host[key];
  if (existing !== undefined) return existing;

  // Captured at install (or earlier), so an app stubbing timers later cannot stall a wait (the engine bounds waits anyway).
  const now = clock?.now ?? performance.now.bind(performance);
  const setTimer = clock?.setTimer ?? window.setTimeout.bind(window);
  const clearTimer = clock?.clearTimer ?? window.clearTimeout.bind(window);
  const documentId = Math.random().toString(36).slice(2, 10);
  let count = 0;
  let lastChange = now();
  const waiters = new Set<() => void>();
  const finishers = new Set<() => void>();

  const clockTime = new RegExp(args.clockTime, 'g');
  const duration = new RegExp(args.duration, 'gi');
  const masked = (text: string): string => text.replace(clockTime, '#:#').replace(duration, '#').replace(/\s+/g, ' ').trim();
  const tickingSelector = [...args.roles.map((role) => `[role="${role}"]`), 'progress', 'meter'].join(',');
  const quietTags = new Set(['script', 'style', 'link', 'meta', 'noscript', 'template', 'title']);
  // Style declarations that move, animate or colour the caret of a box but cannot show or hide it.
  const cosmetic = /^\s*(?:transform|translate|rotate|scale|transition|animation|will-change|caret-color)[\w-]*\s*:/i;
  // Playwright's own overlays (`x-pw-glass` masks screenshots), put in and taken out by the engine.
  const ownElement = (node: Node | null): boolean => node?.nodeType === 1 && (node as Element).localName.startsWith('x-pw-');
  const current = (): string => `${documentId}.${count}`;
  const state = (): PageChangeState => ({ m: current(), q: now() - lastChange, l: document.readyState === 'loading' });

  const changed = (): void => {
    count++;
    lastChange = now();
    for (const waiter of [...waiters]) waiter();
  };
  const ticking = (node: Node): boolean => {
    const element = node.nodeType === 1 ? (node as Element) : node.parentElement;
    return element?.closest(tickingSelector) != null;
  };
  const textOnly = (nodes: NodeList): string | null => {
    let text = '';
    for (const node of Array.from(nodes)) {
      if (node.nodeType !== 3) return null;
      text += (node as Text).data;
    }
    return text;
  };
  const inert = (node: Node): boolean => node.nodeType === 8 || (node.nodeType === 1 && quietTags.has((node as Element).localName)) || ownElement(node);
  const withoutCosmetics = (style: string | null): string =>
    (style ?? '')
      .split(';')
      .filter((declaration) => declaration.trim() !== '' && !cosmetic.test(declaration))
      .join(';');
  const significant = (record: MutationRecord): boolean => {
    if (ticking(record.target) || ownElement(record.target)) return false;
    if (record.type === 'characterData') return masked(record.oldValue ?? '') !== masked((record.target as CharacterData).data);
    if (record.type === 'childList') {
      // A text-only replacement is a tick when only clock times or durations differ.
      const removed = textOnly(record.removedNodes);
      const added = textOnly(record.addedNodes);
      if (removed !== null && added !== null) return masked(removed) !== masked(added);
      return [...Array.from(record.addedNodes), ...Array.from(record.removedNodes)].some((node) => !inert(node));
    }
    const element = record.target as Element;
    if (quietTags.has(element.localName) || args.ownAttributes.includes(record.attributeName ?? '')) return false;
    const value = element.getAttribute(record.attributeName ?? '');
    if (record.attributeName === 'style') return withoutCosmetics(record.oldValue) !== withoutCosmetics(value);
    return record.oldValue !== value;
  };
  const take = (records: MutationRecord[]): void => {
    if (records.some(significant)) changed();
  };
  const observer = new MutationObserver(take);
  const flush = (): void => take(observer.takeRecords());
  const options: MutationObserverInit = { subtree: true, childList: true, attributes: true, attributeOldValue: true, characterData: true, characterDataOldValue: true };
  const events = ['input', 'change', 'focusin', 'focusout', 'toggle', 'transitionend', 'animationend', 'mouseover', 'mouseout', 'readystatechange', 'load'];
  const watched = new WeakSet<Node>();

  const watch = (root: Node): void => {
    if (watched.has(root)) return;
    watched.add(root);
    observer.observe(root, options);
    for (const type of events) root.addEventListener(type, onEvent, { capture: true, passive: true });
  };
  // The pointer over the page's background: what Chromium reports on its own after a new document's first layout
  // (the pointer rests at 0,0), which no hover rule shows anything for. Over anything else it may open a menu.
  const background = (event: Event, target: Node | null): boolean =>
    (event.type === 'mouseover' || event.type === 'mouseout') && target !== null && (target === target.ownerDocument?.documentElement || target === target.ownerDocument?.body);
  const onEvent = (event: Event): void => {
    const target = event.target as Node | null;
    if (ownElement(target) || background(event, target)) return;
    if (event.type === 'load') {
      // Only a frame's load is news here; images and scripts loading are not.
      if (target?.nodeType !== 1 || !/^i?frame$/.test((target as Element).localName)) return;
      try {
        const frameDocument = (target as HTMLIFrameElement).contentDocument;
        if (frameDocument !== null) watch(frameDocument);
      } catch {
        // A cross-origin frame: its load is the change.
      }
    }
    changed();
  };

  watch(document);
  window.addEventListener('hashchange', changed, { capture: true, passive: true });
  window.addEventListener('popstate', changed, { capture: true, passive: true });

  const monitor: PageChangeMonitor = {
    mark: () => {
      flush();
      return current();
    },
    watch,
    wait: (since, until, quietMs, timeoutMs) => {
      flush();
      return new Promise<PageChangeState>((resolve) => {
        const started = now();
        let timer: number | undefined;
        const finish = (): void => {
          waiters.delete(check);
          finishers.delete(finish);
          if (timer !== undefined) clearTimer(timer);
          resolve(state());
        };
        const check = (): void => {
          const left = timeoutMs - (now() - started);
          if (left <= 0) return finish();
          let delay = left;
          if (until === 'change') {
            if (current() !== since) return finish();
          } else if (document.readyState !== 'loading') {
            const quietFor = now() - lastChange;
            if (quietFor >= quietMs) return finish();
            delay = Math.min(left, quietMs - quietFor);
          }
          if (timer !== undefined) clearTimer(timer);
          timer = setTimer(check, Math.max(1, delay));
        };
        waiters.add(check);
        finishers.add(finish);
        check();
      });
    },
    release: () => {
      flush();
      for (const finish of [...finishers]) finish();
      return state();
    },
  };
  host[key] = monitor;
  return monitor;
}
