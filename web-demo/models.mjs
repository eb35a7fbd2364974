// The models the demo offers: where build-site.mjs takes each one from (`source`, relative to the
// repository root), the file it becomes in the site (`file`), the prebuilt index of the collection the
// site build writes for it (`index`, by `swe index build`; a model without one has the collection
// embedded in the page, by a pool of workers), and what the page shows for it. The first is the
// default, loaded on the first visit; any other is fetched only when the user picks it.
// A model whose source is missing is left out of the build (build-site.mjs lists the ones it copied
// in the site's models.json), and the page then offers only the others.
//
// The multilingual model's examples are one query in four languages: each finds the same passage
// ("Clean air, clean water, open spaces ..."), which the browser test checks.
export const MODELS = [
  {
    id: 'en',
    label: 'English',
    source: 'models/swe-en-use-lite-large-para.swe',
    file: 'model.swe',
    index: 'passages.swi',
    placeholder: 'e.g. the Panama canal',
    examples: [
      { lang: 'en', query: 'smallpox vaccination' },
      { lang: 'en', query: 'landing a man on the moon' },
      { lang: 'en', query: 'the transatlantic telegraph' },
      { lang: 'en', query: 'health insurance for every American' },
    ],
  },
  {
    id: 'multi',
    label: 'Multilingual: English, Deutsch, 日本語, 中文',
    source: 'models/swe-multi-en-de-ja-zh.swe',
    file: 'model-multi.swe',
    placeholder: 'e.g. die Abschaffung der Sklaverei, 大西洋横断電信, 废除奴隶制',
    examples: [
      { lang: 'en', query: 'clean air and clean water' },
      { lang: 'de', query: 'saubere Luft und sauberes Wasser' },
      { lang: 'ja', query: 'きれいな空気ときれいな水' },
      { lang: 'zh', query: '清洁的空气和清洁的水' },
    ],
  },
];
