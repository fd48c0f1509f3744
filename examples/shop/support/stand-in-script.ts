/**
 * What the stand-in model knows: one plan per `act` of the example suite and one answer per
 * judgment, each naming controls by role and name as a person reading the screen would.
 */
import type { StandInScript } from './stand-in-model.js';

export const standInScript: StandInScript = {
  acts: {
    'sign in as ada': [
      { tool: 'type', role: 'textbox', name: 'User name', text: 'ada' },
      { tool: 'type_secret', role: 'textbox', name: 'Password', secret: 'shopPassword' },
      { tool: 'tap', role: 'button', name: 'Sign in' },
    ],
    'add Oat milk and Green tea to the cart': [
      { tool: 'tap', role: 'button', name: 'Add to cart', within: 'Oat milk' },
      { tool: 'tap', role: 'button', name: 'Add to cart', within: 'Green tea' },
    ],
    'remove Green tea from the cart': [{ tool: 'tap', role: 'button', name: 'Delete', within: 'Green tea' }],
    'put Black coffee in the cart and go to the checkout': [
      { tool: 'tap', role: 'button', name: 'Add to cart', within: 'Black coffee' },
      { tool: 'tap', role: 'link', name: 'Checkout' },
    ],
    'place an order for express delivery': [
      { tool: 'type', role: 'textbox', name: 'Email', text: '{email}' },
      { tool: 'select', role: 'combobox', name: 'Delivery', value: 'Express (next day)' },
      { tool: 'check', role: 'checkbox', name: 'I accept the terms' },
      { tool: 'tap', role: 'button', name: 'Place order' },
    ],
  },
  judgments: {
    'signed in as ada': { evidence: [{ role: 'text', name: 'Signed in as ada' }] },
    'the cart holds exactly one item, Oat milk': {
      evidence: [
        { role: 'status', name: '1 item in cart' },
        { role: 'listitem', name: 'Oat milk' },
      ],
    },
    'the chosen delivery': { evidence: [{ role: 'text', name: 'express' }], value: { delivery: 'express' } },
  },
};
