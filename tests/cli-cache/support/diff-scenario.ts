/**
 * The cache-diff scenario of the goldens (`golden/cache-diff/`): a base cache and a head
 * cache of a small shop suite with every kind of change: an action that now taps another
 * button, a step that visits a new origin, types a card number and checks less, a step that
 * became a gap, a re-keyed step (its instruction changed), a removed and an added entry (the
 * latter typing an email address), and entries that stay the same.
 */
import type { ActEntry } from '../../../cache-format/index.js';
import { actEntry, control, SHOP_ORIGIN, stateControl } from '../../support/cache-fixtures.js';

const COUPON_TEST = 'tests/checkout.e2e.ts::checkout › applies a coupon and pays';
const TODO_TEST = 'tests/todos.e2e.ts::todos › adds a todo';
const PROFILE_TEST = 'tests/profile.e2e.ts::profile › edits the name';
const SEARCH_TEST = 'tests/search.e2e.ts::search › finds a product';
const SIGNUP_TEST = 'tests/signup.e2e.ts::signup › creates an account';
const CART_TEST = 'tests/cart.e2e.ts::cart › empties the cart';

type Action = ActEntry['actions'][number];

/** Type `value` (written as-is) into the textbox-like control `role` "name", replacing what it holds. */
function typed(role: string, name: string, value: string): Action {
  return { verb: 'type', target: control(role, name), value: { kind: 'literal', value }, replace: true };
}

/** The coupon step: focus the coupon box, type SAVE10, tap `button`; `status` appears. */
function applyCoupon(button: string, status: string, recordedAt?: string): Promise<ActEntry> {
  return actEntry({
    testId: COUPON_TEST,
    instruction: 'apply the coupon SAVE10',
    actions: [{ verb: 'tap', target: control('textbox', 'Coupon') }, typed('textbox', 'Coupon', 'SAVE10'), { verb: 'tap', target: control('button', button) }],
    appeared: [stateControl('status', status)],
    path: '/cart',
    ...(recordedAt === undefined ? {} : { recordedAt }),
  });
}

/** The todo step: type the title, then `finish` (press Enter, or a gap); the item appears. */
function addTodo(finish: Action): Promise<ActEntry> {
  return actEntry({
    testId: TODO_TEST,
    instruction: 'add a todo "Buy milk"',
    actions: [typed('textbox', 'New todo', 'Buy milk'), finish],
    appeared: [stateControl('listitem', 'Buy milk')],
  });
}

/** The search step for `term`. */
function search(term: string): Promise<ActEntry> {
  return actEntry({
    testId: SEARCH_TEST,
    instruction: `search for ${term}`,
    actions: [typed('searchbox', 'Search', term), { verb: 'press', key: 'Enter' }],
    appeared: [stateControl('heading', 'Results')],
  });
}

/** Entries that are the same on both sides. */
async function unchanged(): Promise<ActEntry[]> {
  return [
    await actEntry({
      testId: CART_TEST,
      instruction: 'remove every item from the cart',
      actions: [{ verb: 'tap', target: control('button', 'Remove', { container: { role: 'listitem', name: 'Shoes' } }) }],
      appeared: [stateControl('status', 'Your cart is empty')],
    }),
    await actEntry({
      testId: TODO_TEST,
      instruction: 'complete the todo',
      actions: [{ verb: 'check', target: control('checkbox', 'Toggle', { container: { role: 'listitem', name: 'Buy milk' } }), checked: true }],
      appeared: [stateControl('checkbox', 'Toggle', ['checked'])],
    }),
  ];
}

/** The base state's entries. */
export async function baseEntries(): Promise<ActEntry[]> {
  return [
    ...(await unchanged()),
    await applyCoupon('Apply', 'Coupon applied'),
    await actEntry({
      testId: COUPON_TEST,
      instruction: 'pay with the test card',
      actions: [{ verb: 'tap', target: control('button', 'Pay') }],
      appeared: [stateControl('heading', 'Thank you'), stateControl('status', 'Payment received')],
      gone: [stateControl('button', 'Pay')],
      path: '/checkout',
    }),
    await addTodo({ verb: 'press', key: 'Enter' }),
    await actEntry({
      testId: PROFILE_TEST,
      instruction: 'change the name to Ada',
      actions: [typed('textbox', 'Name', 'Ada')],
      appeared: [stateControl('status', 'Saved')],
    }),
    await search('shoes'),
  ];
}

/** The head state's entries. */
export async function headEntries(): Promise<ActEntry[]> {
  return [
    ...(await unchanged()),
    await applyCoupon('Redeem', 'Coupon redeemed', '2025-03-05T08:00:00.000Z'),
    await actEntry({
      testId: COUPON_TEST,
      instruction: 'pay with the test card',
      actions: [{ verb: 'navigate', url: 'https://pay.example.com/checkout' }, typed('textbox', 'Card number', '4242 4242 4242 4242'), { verb: 'tap', target: control('button', 'Pay') }],
      appeared: [stateControl('heading', 'Thank you')],
      origins: [SHOP_ORIGIN, 'https://pay.example.com'],
      path: '/checkout',
    }),
    await addTodo({ verb: 'gap', rule: 'mutating project tool', tool: 'seedTodos' }),
    await search('red shoes'),
    await actEntry({
      testId: SIGNUP_TEST,
      instruction: 'sign up as a new customer',
      actions: [
        typed('textbox', 'Email', 'jane.doe@example.com'),
        { verb: 'type', target: control('textbox', 'Password'), value: { kind: 'secret', name: 'customerPassword' }, replace: true },
        { verb: 'tap', target: control('button', 'Create account') },
      ],
      appeared: [stateControl('status', 'Welcome, Jane')],
      path: '/signup',
    }),
  ];
}
