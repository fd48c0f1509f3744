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
    await actEntry({
      testId: COUPON_TEST,
      instruction: 'apply the coupon SAVE10',
      actions: [
        { verb: 'tap', target: control('textbox', 'Coupon') },
        { verb: 'type', target: control('textbox', 'Coupon'), value: { kind: 'literal', value: 'SAVE10' }, replace: true },
        { verb: 'tap', target: control('button', 'Apply') },
      ],
      appeared: [stateControl('status', 'Coupon applied')],
      path: '/cart',
    }),
    await actEntry({
      testId: COUPON_TEST,
      instruction: 'pay with the test card',
      actions: [{ verb: 'tap', target: control('button', 'Pay') }],
      appeared: [stateControl('heading', 'Thank you'), stateControl('status', 'Payment received')],
      gone: [stateControl('button', 'Pay')],
      path: '/checkout',
    }),
    await actEntry({
      testId: TODO_TEST,
      instruction: 'add a todo "Buy milk"',
      actions: [
        { verb: 'type', target: control('textbox', 'New todo'), value: { kind: 'literal', value: 'Buy milk' }, replace: true },
        { verb: 'press', key: 'Enter' },
      ],
      appeared: [stateControl('listitem', 'Buy milk')],
    }),
    await actEntry({
      testId: PROFILE_TEST,
      instruction: 'change the name to Ada',
      actions: [{ verb: 'type', target: control('textbox', 'Name'), value: { kind: 'literal', value: 'Ada' }, replace: true }],
      appeared: [stateControl('status', 'Saved')],
    }),
    await actEntry({
      testId: SEARCH_TEST,
      instruction: 'search for shoes',
      actions: [
        { verb: 'type', target: control('searchbox', 'Search'), value: { kind: 'literal', value: 'shoes' }, replace: true },
        { verb: 'press', key: 'Enter' },
      ],
      appeared: [stateControl('heading', 'Results')],
    }),
  ];
}

/** The head state's entries. */
export async function headEntries(): Promise<ActEntry[]> {
  return [
    ...(await unchanged()),
    await actEntry({
      testId: COUPON_TEST,
      instruction: 'apply the coupon SAVE10',
      actions: [
        { verb: 'tap', target: control('textbox', 'Coupon') },
        { verb: 'type', target: control('textbox', 'Coupon'), value: { kind: 'literal', value: 'SAVE10' }, replace: true },
        { verb: 'tap', target: control('button', 'Redeem') },
      ],
      appeared: [stateControl('status', 'Coupon redeemed')],
      path: '/cart',
      recordedAt: '2025-03-05T08:00:00.000Z',
    }),
    await actEntry({
      testId: COUPON_TEST,
      instruction: 'pay with the test card',
      actions: [
        { verb: 'navigate', url: 'https://pay.example.com/checkout' },
        { verb: 'type', target: control('textbox', 'Card number'), value: { kind: 'literal', value: '4242 4242 4242 4242' }, replace: true },
        { verb: 'tap', target: control('button', 'Pay') },
      ],
      appeared: [stateControl('heading', 'Thank you')],
      origins: [SHOP_ORIGIN, 'https://pay.example.com'],
      path: '/checkout',
    }),
    await actEntry({
      testId: TODO_TEST,
      instruction: 'add a todo "Buy milk"',
      actions: [
        { verb: 'type', target: control('textbox', 'New todo'), value: { kind: 'literal', value: 'Buy milk' }, replace: true },
        { verb: 'gap', rule: 'mutating project tool', tool: 'seedTodos' },
      ],
      appeared: [stateControl('listitem', 'Buy milk')],
    }),
    await actEntry({
      testId: SEARCH_TEST,
      instruction: 'search for red shoes',
      actions: [
        { verb: 'type', target: control('searchbox', 'Search'), value: { kind: 'literal', value: 'red shoes' }, replace: true },
        { verb: 'press', key: 'Enter' },
      ],
      appeared: [stateControl('heading', 'Results')],
    }),
    await actEntry({
      testId: SIGNUP_TEST,
      instruction: 'sign up as a new customer',
      actions: [
        { verb: 'type', target: control('textbox', 'Email'), value: { kind: 'literal', value: 'jane.doe@example.com' }, replace: true },
        { verb: 'type', target: control('textbox', 'Password'), value: { kind: 'secret', name: 'customerPassword' }, replace: true },
        { verb: 'tap', target: control('button', 'Create account') },
      ],
      appeared: [stateControl('status', 'Welcome, Jane')],
      path: '/signup',
    }),
  ];
}
