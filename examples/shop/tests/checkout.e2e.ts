import { expect, test, unique } from 'e2e';
import { z } from 'zod';

test('places an express order with a fresh email address', async ({ app, agent, screen }) => {
  await app.open('/products');
  await agent.act('put Black coffee in the cart and go to the checkout');
  await expect(screen).toHaveURL(/\/checkout$/);
  const email = unique(`buyer-${Date.now()}@example.test`);
  await agent.act('place an order for express delivery using the email {email}', { params: { email } });
  // The order number changes on every run; the replay reads it as a placeholder.
  await expect(screen.getByTestId('order-number')).toHaveText(/^\d{6}$/);
  await expect(screen.getByRole('status')).toContainText('Order confirmed for buyer-');
  const order = await agent.extract('the chosen delivery', z.object({ delivery: z.string() }));
  expect(order.delivery).toBe('express');
});
