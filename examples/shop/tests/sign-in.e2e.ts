import { expect, secret, test } from 'e2e';

test('signs in with the shop password', async ({ app, agent, screen }) => {
  await app.open('/');
  await agent.act('sign in as ada with the password {password}', { params: { password: secret('shopPassword') } });
  await expect(screen).toHaveURL(/\/products$/);
  await agent.assert('the page says the visitor is signed in as ada');
});
