/**
 * In-page knowledge of HTML and ARIA semantics for the walk: role mapping, accessible
 * names, and the role families the screen treats alike. Like {@link walkPage} it runs inside
 * the browser, so it is one self-contained factory; its source is injected into the same
 * single `evaluate` and handed to the walk.
 */

/** Build the semantics helpers. Runs inside the browser. */
export function pageSemantics() {
  const FULL_CONTENT = new Set(['button', 'link', 'heading', 'option', 'tab', 'menuitem', 'menuitemcheckbox', 'menuitemradio', 'treeitem', 'checkbox', 'radio', 'switch', 'tooltip', 'cell', 'gridcell', 'columnheader', 'rowheader']);
  const OWN_TEXT = new Set(['listitem']);
  const COLLAPSED = new Set(['generic', 'none', 'presentation', 'paragraph', 'rowgroup', 'emphasis', 'strong', 'code', 'deletion', 'insertion', 'subscript', 'superscript', 'time', 'mark', 'caption', 'term', 'definition', 'blockquote', 'figure', 'note']);
  const INTERACTIVE = new Set(['button', 'link', 'textbox', 'searchbox', 'checkbox', 'radio', 'combobox', 'listbox', 'option', 'slider', 'spinbutton', 'switch', 'tab', 'menuitem', 'menuitemcheckbox', 'menuitemradio', 'treeitem', 'iframe']);
  const KNOWN_ROLES = new Set([...FULL_CONTENT, ...OWN_TEXT, ...COLLAPSED, ...INTERACTIVE, 'alert', 'alertdialog', 'application', 'article', 'banner', 'complementary', 'contentinfo', 'dialog', 'document', 'feed', 'form', 'grid', 'group', 'img', 'list', 'log', 'main', 'marquee', 'math', 'menu', 'menubar', 'meter', 'navigation', 'progressbar', 'radiogroup', 'region', 'row', 'scrollbar', 'search', 'separator', 'status', 'table', 'tablist', 'tabpanel', 'timer', 'toolbar', 'tree', 'treegrid']);
  const SKIPPED_TAGS = new Set(['script', 'style', 'template', 'noscript', 'head', 'meta', 'link', 'title', 'datalist', 'hr', 'br', 'wbr']);
  const LANDMARK_SCOPES = 'article,aside,main,nav,section';

  /** Whitespace runs to one space, trimmed. */
  const collapse = (text: string): string => text.replace(/\s+/g, ' ').trim();

  const referencedText = (element: Element, attribute: string): string => {
    const root = element.getRootNode() as Document | ShadowRoot;
    const parts: string[] = [];
    for (const reference of (element.getAttribute(attribute) ?? '').split(/\s+/)) {
      if (reference === '') continue;
      const target = root.getElementById(reference) ?? element.ownerDocument.getElementById(reference);
      if (target !== null) parts.push(target.getAttribute('aria-label') ?? target.textContent ?? '');
    }
    return collapse(parts.join(' '));
  };

  // A label's words, without the text of controls nested in it.
  const labelText = (label: Element): string => {
    let text = '';
    // In document order, with a stack of next siblings rather than recursion (labels may nest deep).
    const pending: Array<Node | null> = [label.firstChild];
    while (pending.length > 0) {
      const child = pending.pop()!;
      if (child === null) continue;
      pending.push(child.nextSibling);
      if (child.nodeType === 3) text += (child as Text).data;
      else if (child.nodeType === 1) {
        const tag = (child as Element).localName;
        if (tag !== 'select' && tag !== 'textarea' && tag !== 'input' && tag !== 'script' && tag !== 'style') pending.push(child.firstChild);
      }
    }
    return collapse(text);
  };

  /**
   * A field's labels as `element.labels` lists them (in tree order), without its cost: that
   * list searches the whole document for every field. A label whose control is the field is
   * either an ancestor of it or names its id in `for`, in the same tree.
   */
  const labelsOf = (element: Element): Element[] => {
    if (element.localName === 'input' && (element as HTMLInputElement).type === 'hidden') return [];
    const found: Element[] = [];
    for (let node = element.parentElement; node !== null; node = node.parentElement) {
      if (node.localName === 'label' && (node as HTMLLabelElement).control === element) found.push(node);
    }
    if (element.id !== '') {
      const root = element.getRootNode() as Document | ShadowRoot;
      for (const label of Array.from(root.querySelectorAll(`label[for="${CSS.escape(element.id)}"]`))) {
        if ((label as HTMLLabelElement).control === element && !found.includes(label)) found.push(label);
      }
    }
    if (found.length < 2) return found;
    return found.sort((left, right) => (left.compareDocumentPosition(right) & Node.DOCUMENT_POSITION_FOLLOWING ? -1 : 1));
  };

  const implicitRole = (element: Element, tag: string): string => {
    switch (tag) {
      case 'a':
      case 'area':
        return element.hasAttribute('href') ? 'link' : 'generic';
      case 'button':
      case 'summary':
        return 'button';
      case 'input': {
        const type = ((element as HTMLInputElement).getAttribute('type') ?? '').toLowerCase();
        if (type === 'hidden') return 'none';
        if (type === 'checkbox') return 'checkbox';
        if (type === 'radio') return 'radio';
        if (type === 'button' || type === 'submit' || type === 'reset' || type === 'image' || type === 'file') return 'button';
        if (type === 'search') return element.hasAttribute('list') ? 'combobox' : 'searchbox';
        if (type === 'number') return 'spinbutton';
        if (type === 'range') return 'slider';
        return element.hasAttribute('list') ? 'combobox' : 'textbox';
      }
      case 'textarea':
        return 'textbox';
      case 'select': {
        const select = element as HTMLSelectElement;
        return select.multiple || select.size > 1 ? 'listbox' : 'combobox';
      }
      case 'option':
        return 'option';
      case 'optgroup':
      case 'fieldset':
      case 'details':
        return 'group';
      case 'ul':
      case 'ol':
      case 'menu':
        return 'list';
      case 'li':
        return 'listitem';
      case 'h1':
      case 'h2':
      case 'h3':
      case 'h4':
      case 'h5':
      case 'h6':
        return 'heading';
      case 'img':
        return element.getAttribute('alt') === '' ? 'none' : 'img';
      case 'svg':
        return element.hasAttribute('aria-label') || element.hasAttribute('aria-labelledby') || element.querySelector(':scope > title') !== null ? 'img' : 'none';
      case 'nav':
        return 'navigation';
      case 'main':
        return 'main';
      case 'aside':
        return 'complementary';
      case 'search':
        return 'search';
      case 'header':
        return element.parentElement?.closest(LANDMARK_SCOPES) ? 'generic' : 'banner';
      case 'footer':
        return element.parentElement?.closest(LANDMARK_SCOPES) ? 'generic' : 'contentinfo';
      case 'form':
      case 'section':
        return element.hasAttribute('aria-label') || element.hasAttribute('aria-labelledby') || element.hasAttribute('title') ? (tag === 'form' ? 'form' : 'region') : 'generic';
      case 'article':
        return 'article';
      case 'dialog':
        return 'dialog';
      case 'table':
        return 'table';
      case 'tr':
        return 'row';
      case 'td':
        return 'cell';
      case 'th':
        return element.getAttribute('scope') === 'row' ? 'rowheader' : 'columnheader';
      case 'output':
        return 'status';
      case 'progress':
        return 'progressbar';
      case 'meter':
        return 'meter';
      case 'iframe':
      case 'frame':
        return 'iframe';
      default:
        return (element as HTMLElement).isContentEditable && !element.parentElement?.isContentEditable ? 'textbox' : 'generic';
    }
  };

  const roleOf = (element: Element, tag: string): string => {
    const explicit = element.getAttribute('role');
    if (explicit !== null) {
      for (const token of explicit.trim().toLowerCase().split(/\s+/)) if (KNOWN_ROLES.has(token)) return token;
    }
    return implicitRole(element, tag);
  };

  const nativeName = (element: Element, tag: string): string => {
    if (tag === 'input') {
      const input = element as HTMLInputElement;
      const type = input.type;
      if (type === 'submit' || type === 'reset' || type === 'button') return input.value || (type === 'submit' ? 'Submit' : type === 'reset' ? 'Reset' : '');
      if (type === 'image') return input.alt || input.value || 'Submit';
    }
    if (tag === 'input' || tag === 'textarea' || tag === 'select' || tag === 'meter' || tag === 'progress' || tag === 'output') {
      const labels = labelsOf(element);
      if (labels.length > 0) return collapse(labels.map(labelText).join(' '));
      return '';
    }
    if (tag === 'img' || tag === 'area') return collapse(element.getAttribute('alt') ?? '');
    if (tag === 'svg') return collapse(element.querySelector(':scope > title')?.textContent ?? '');
    if (tag === 'fieldset') {
      const legend = element.querySelector(':scope > legend');
      if (legend !== null) return collapse(legend.textContent ?? '');
    }
    if (tag === 'table') {
      const caption = (element as HTMLTableElement).caption;
      if (caption !== null) return collapse(caption.textContent ?? '');
    }
    if (tag === 'iframe' || tag === 'frame') return collapse(element.getAttribute('title') ?? '');
    if (tag === 'option' || tag === 'optgroup') return collapse((element as HTMLOptionElement).label ?? '');
    return '';
  };

  return { FULL_CONTENT, OWN_TEXT, COLLAPSED, INTERACTIVE, SKIPPED_TAGS, collapse, referencedText, roleOf, nativeName };
}

/** The helpers {@link pageSemantics} returns. */
export type PageSemantics = ReturnType<typeof pageSemantics>;
