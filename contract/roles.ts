/**
 * The role vocabulary of the screen tree (DESIGN §4): the role groups the core gives meaning to,
 * in one place. Every engine maps its platform into these ARIA role names — the web engine from
 * HTML and ARIA (`engines/web/page-semantics.ts`, the web's one home), the terminal engine from
 * what a person sees on a terminal screen (`engines/terminal/`) — and the step runner, recorder,
 * replayer and executors read only these groups, never a list of their own.
 */

/** Fields a person types into. */
export const EDITABLE_ROLES: ReadonlySet<string> = new Set(['textbox', 'searchbox', 'combobox', 'spinbutton']);

/** Controls whose shown value the platform sets by itself when typed into or chosen from (a field's text, a select's choice). */
export const VALUED_ROLES: ReadonlySet<string> = new Set([...EDITABLE_ROLES, 'listbox', 'slider']);

/** Controls a tap toggles: the platform itself flips their state (a native checkbox ticks whatever the app does). */
export const TOGGLE_ROLES: ReadonlySet<string> = new Set(['checkbox', 'radio', 'switch']);

/** Controls with a checked state, menu items included. */
export const CHECKABLE_ROLES: ReadonlySet<string> = new Set([...TOGGLE_ROLES, 'menuitemcheckbox', 'menuitemradio']);

/** Controls a person taps to act (a decision executor offers a tap on these). */
export const TAPPABLE_ROLES: ReadonlySet<string> = new Set(['button', 'link', 'tab', 'menuitem', 'menuitemcheckbox', 'menuitemradio', 'option', 'treeitem', 'summary']);

/** Roles a person operates: their labels never name a row (an "Add to cart" button is in every row); a screen with one is worth acting on. */
export const INTERACTIVE_ROLES: ReadonlySet<string> = new Set([
  'button', 'link', 'textbox', 'searchbox', 'checkbox', 'radio', 'switch', 'combobox', 'listbox', 'option', 'slider', 'spinbutton', 'tab',
  'menuitem', 'menuitemcheckbox', 'menuitemradio', 'treeitem',
]);

/**
 * Roles that name a region a control sits in. Cells are left out on purpose: a cell's name is
 * usually the control's own text, while the row around it tells rows apart.
 */
export const CONTAINER_ROLES: ReadonlySet<string> = new Set([
  'row', 'listitem', 'treeitem', 'article', 'group', 'radiogroup', 'dialog', 'alertdialog', 'form', 'region', 'search', 'navigation', 'complementary',
  'main', 'table', 'grid', 'treegrid', 'list', 'tree', 'menu', 'menubar', 'tablist', 'tabpanel', 'toolbar', 'figure', 'banner', 'contentinfo',
]);

/**
 * Container roles that count even without a name: a dialog, a landmark, a tab panel or a form
 * says where a control sits (the URL field in the banner is not the request body in main).
 */
export const UNNAMED_CONTAINER_ROLES: ReadonlySet<string> = new Set(['dialog', 'alertdialog', 'banner', 'navigation', 'main', 'contentinfo', 'complementary', 'search', 'form', 'tabpanel']);

/** Container roles that take a name from their content when they have no accessible name. */
export const CONTENT_NAMED_CONTAINERS: ReadonlySet<string> = new Set(['row', 'listitem', 'treeitem', 'article']);

/** The containers a change report names a changed line by (`added #n31 checkbox "Toggle" in listitem "Buy milk"`). */
export const CHANGE_CONTAINER_ROLES: ReadonlySet<string> = new Set([
  'listitem', 'row', 'treeitem', 'article', 'dialog', 'alertdialog', 'form', 'group', 'radiogroup', 'region', 'list', 'table', 'grid', 'treegrid',
  'tree', 'menu', 'menubar', 'toolbar', 'tabpanel',
]);

/** Repeating units whose state sits on a control inside them (rows of a list, a table, a tree). */
export const ITEM_ROLES: ReadonlySet<string> = new Set(['row', 'listitem', 'treeitem', 'article', 'option', 'gridcell']);

/** UI that covers the screen: one the recording never mentions blocks a replayed action under it. */
export const OVERLAY_ROLES: ReadonlySet<string> = new Set(['dialog', 'alertdialog']);

/** Containers a step may dismiss (a consent banner, a tour popover, a "what's new" dialog). */
export const DISMISSABLE_ROLES: ReadonlySet<string> = new Set(['dialog', 'alertdialog', 'region', 'complementary']);

/** Messages an app announces (alerts and status lines first among a step's outcomes). */
export const ANNOUNCEMENT_ROLES: ReadonlySet<string> = new Set(['alert', 'alertdialog', 'status', 'log', 'marquee', 'timer']);

/** Roles whose content ticks on its own (a clock, a progress bar): their changes are no effect of an action. */
export const TICKING_ROLES: ReadonlySet<string> = new Set(['timer', 'marquee', 'progressbar', 'meter']);

/** Roles that give a screen its outline (headings, landmarks, bars, announcements, dialogs): a bounded screen keeps them first. */
export const OUTLINE_ROLES: ReadonlySet<string> = new Set([
  'heading', 'banner', 'navigation', 'main', 'contentinfo', 'complementary', 'search', 'form', 'region', 'tablist', 'menubar', 'toolbar', 'alert', 'status',
  'dialog', 'alertdialog',
]);

/** The screen's frame, never an outcome (`rootwebarea` and `webarea` are Chromium's names for the document). */
export const FRAME_ROLES: ReadonlySet<string> = new Set(['document', 'rootwebarea', 'webarea', 'none', 'presentation']);

/** Plain text and the wrappers around it: an outcome of these is weaker evidence than a named control. */
export const TEXT_ROLES: ReadonlySet<string> = new Set(['generic', 'text', 'statictext', 'paragraph', 'strong', 'emphasis', 'span', 'div']);
