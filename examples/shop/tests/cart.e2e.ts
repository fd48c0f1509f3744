import { expect, test } from 'e2e';

test('adds two products from their rows and removes one', async ({ app, agent, screen }) => {
  await app.open('/products');
  await agent.act('add Oat milk and Green tea to the cart');
  await expect(screen.getByRole('list', { name: 'Cart' }).getByRole('listitem')).toHaveCount(2);
  await agent.act('remove Green tea from the cart');
  await expect(screen.getByRole('status')).toHaveText('1 item in cart');
  await agent.assert('the cart holds exactly one item, Oat milk');
});
