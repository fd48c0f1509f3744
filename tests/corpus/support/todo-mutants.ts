/**
 * Regressions planted in the code of TodoMVC implementations from the `todomvc` package: a copy
 * of the example folder with one behaviour broken, the way a real change breaks an app. Three
 * kinds on each implementation: the tick's handler does nothing while the browser's default
 * still happens (the native box ticks, or React puts it back), the counter no longer follows the
 * state, and the tick deletes the todo instead of completing it.
 */
import { cpSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

/** The `todomvc` package's examples folder. */
export const TODOMVC_EXAMPLES = join(dirname(createRequire(import.meta.url).resolve('todomvc/package.json')), 'examples');

/**
 * Implementations that load offline (no CDN, no build step) and follow the spec's markup closely
 * enough to drive; `typescript-backbone` has no filters, the others do.
 */
export const TODOMVC_IMPLEMENTATIONS = [
  'vanillajs',
  'react',
  'backbone',
  'angularjs',
  'knockoutjs',
  'emberjs',
  'vue',
  'mithril',
  'canjs',
  'dojo',
  'typescript-angular',
  'typescript-backbone',
] as const;

/** The kinds of planted regression. */
export const MUTANT_KINDS = ['handler does nothing', 'counter ignores the state', 'deletes instead of completing'] as const;
/** One kind of planted regression. */
export type MutantKind = (typeof MUTANT_KINDS)[number];

/** One edit of one file of the example: `from` (which must occur once) becomes `to`. */
interface Edit {
  file: string;
  from: string;
  to: string;
}

/** Implementations with every kind of mutant: plain JavaScript, the jQuery/Backbone era, two component frameworks. */
export const MUTATED_IMPLEMENTATIONS = ['vanillajs', 'backbone', 'react', 'vue'] as const;
/** An implementation with planted regressions. */
export type MutatedImplementation = (typeof MUTATED_IMPLEMENTATIONS)[number];

const VUE_TOGGLE = '<input class="toggle" type="checkbox" v-model="completed">';

/** Where each mutant is planted. */
export const MUTANTS: Readonly<Record<MutatedImplementation, Readonly<Record<MutantKind, readonly Edit[]>>>> = {
  vanillajs: {
    // The click never reaches the app's listener; the checkbox ticks by itself.
    'handler does nothing': [{ file: 'js/view.js', from: "$live('#todo-list .toggle', 'click', function () {", to: "$live('#todo-list .toggle-unbound', 'click', function () {" }],
    'counter ignores the state': [{ file: 'js/controller.js', from: "that.view.render('updateElementCount', todos.active);", to: "that.view.render('updateElementCount', todos.total);" }],
    'deletes instead of completing': [
      {
        file: 'js/controller.js',
        from: 'Controller.prototype.toggleComplete = function (id, completed, silent) {',
        to: 'Controller.prototype.toggleComplete = function (id, completed, silent) { return this.removeItem(id);',
      },
    ],
  },
  backbone: {
    'handler does nothing': [{ file: 'js/views/todo-view.js', from: "'click .toggle': 'toggleCompleted',", to: "'click .toggle-unbound': 'toggleCompleted'," }],
    'counter ignores the state': [{ file: 'js/views/app-view.js', from: 'remaining: remaining', to: 'remaining: app.todos.length' }],
    'deletes instead of completing': [{ file: 'js/views/todo-view.js', from: 'this.model.toggle();', to: 'this.model.destroy();' }],
  },
  react: {
    // A controlled checkbox: React puts the box back when the state does not change.
    'handler does nothing': [{ file: 'js/app.jsx', from: 'this.props.model.toggle(todoToToggle);', to: '' }],
    'counter ignores the state': [{ file: 'js/app.jsx', from: 'count={activeTodoCount}', to: 'count={todos.length}' }],
    'deletes instead of completing': [{ file: 'js/app.jsx', from: 'this.props.model.toggle(todoToToggle);', to: 'this.props.model.destroy(todoToToggle);' }],
  },
  vue: {
    // The box is no longer bound to the todo: it ticks, the todo stays active.
    'handler does nothing': [{ file: 'index.html', from: VUE_TOGGLE, to: '<input class="toggle" type="checkbox">' }],
    'counter ignores the state': [
      {
        file: 'index.html',
        from: '<strong v-text="remaining"></strong> {{remaining | pluralize item}} left',
        to: '<strong v-text="todos.length"></strong> {{todos.length | pluralize item}} left',
      },
    ],
    'deletes instead of completing': [{ file: 'index.html', from: VUE_TOGGLE, to: '<input class="toggle" type="checkbox" v-on="change: removeTodo(this)">' }],
  },
};

/**
 * A copy of the implementation's example folder with the mutant planted, in a new temporary
 * folder (the caller removes it). Throws when an edit no longer applies, so a package update
 * cannot silently turn a mutant into the working app.
 */
export function plantMutant(app: MutatedImplementation, kind: MutantKind): string {
  const folder = mkdtempSync(join(tmpdir(), `e2e-mutant-${app}-`));
  cpSync(join(TODOMVC_EXAMPLES, app), folder, { recursive: true });
  for (const edit of MUTANTS[app][kind]) {
    const path = join(folder, edit.file);
    const source = readFileSync(path, 'utf8');
    if (source.split(edit.from).length !== 2) throw new Error(`the mutant "${kind}" does not apply to ${app}'s ${edit.file}`);
    writeFileSync(path, source.replace(edit.from, edit.to));
  }
  return folder;
}
