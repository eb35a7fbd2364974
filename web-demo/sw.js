// Offline support: on install, keeps every file of the site (assets.json, written by build-site.mjs)
// in the Cache API; afterwards answers same-origin GETs from the network when it can (so a rebuilt
// site is picked up at once) and from the cache when it cannot. Models and indexes are not its
// business: swe-embeddings keeps them in its own cache (loadModel and loadIndex with cache: true, in
// worker.mjs).
const CACHE = 'swe-demo-v1';

self.addEventListener('install', (event) => {
  event.waitUntil((async () => {
    const { assets } = await (await fetch('assets.json', { cache: 'no-store' })).json();
    const cache = await caches.open(CACHE);
    await cache.addAll(assets);
    await self.skipWaiting();
  })());
});

self.addEventListener('activate', (event) => event.waitUntil(self.clients.claim()));

self.addEventListener('fetch', (event) => {
  const url = new URL(event.request.url);
  if (event.request.method !== 'GET' || url.origin !== location.origin || /\.sw[ei]$/.test(url.pathname)) return;
  event.respondWith((async () => {
    try {
      const response = await fetch(event.request);
      if (response.ok) {
        const copy = response.clone();
        event.waitUntil(caches.open(CACHE).then((cache) => cache.put(event.request, copy)));
      }
      return response;
    } catch (error) {
      const cached = await caches.match(event.request, { ignoreSearch: true });
      if (cached) return cached;
      throw error;
    }
  })());
});
