/**
 * What the stand-in model (`../shop/support/stand-in-model.ts`) knows of the terminal example:
 * one plan per `act`, one answer per judgment, naming the controls by role and name as a
 * person reading the terminal would.
 */
import type { StandInScript } from '../../shop/support/stand-in-model.js';

export const coffeeScript: StandInScript = {
  acts: {
    'pick Latte from the drinks': [{ tool: 'tap', role: 'menuitem', name: 'Latte' }],
    'tick Oat milk': [{ tool: 'check', role: 'checkbox', name: 'Oat milk' }],
    'confirm the extras': [{ tool: 'tap', role: 'button', name: 'OK' }],
    'give Ada as the name for the cup': [
      { tool: 'type', role: 'textbox', name: 'Name for the cup', text: 'Ada' },
      { tool: 'press', key: 'Enter' },
    ],
  },
  judgments: {
    'the order placed is a Latte with oat milk for Ada': { evidence: [{ role: 'text', name: 'Order placed: Latte with oat milk for Ada' }] },
  },
};
