import { expect, test } from 'e2e';

test('orders a latte with oat milk for Ada', async ({ app, agent, screen }) => {
  await app.open();
  await agent.act('pick Latte from the drinks');
  await agent.act('tick Oat milk');
  await expect(screen.getByRole('checkbox', { name: 'Oat milk' })).toBeChecked();
  await agent.act('confirm the extras');
  await agent.act('give Ada as the name for the cup');
  await expect(screen.getByText('Order placed')).toBeVisible();
  await agent.assert('the order placed is a Latte with oat milk for Ada');
});
