import type { SelectorSet } from './schema';

/**
 * The words Perplexity's page shows, by language: what the built-in sets fall back on when no test
 * id, icon or structure says the same thing (lib/selectors/labels.ts explains the placeholders).
 * English is what was seen on the live site (lib/selectors/README.md dates each fact). French and
 * Arabic are the words of the simulated localized pages: a start for a person who sees other words,
 * who can add or fix a language with `comet-relay selectors add` without a rebuild.
 *
 * The sets are written with English alone (common.ts), and that is what the page script carries:
 * the other languages weigh about 0.75 kB gzip, over the page script's budget. The worker hands them
 * to every page with the data packs, before any request reaches it (lib/worker/packs.ts), and the
 * page's catalog adds them to its built-in sets (lib/selectors/catalog.ts), so a French or Arabic
 * page is read with nothing installed. Everywhere else (the CLI's `selectors show`, index.ts'
 * sets) the built-in sets hold every language.
 */
export const ENGLISH_LABELS: SelectorSet['labels'] = {
  en: {
    words: {
      submit: ['Submit'],
      stop: ['Stop'],
      cancel: ['Cancel'],
      newThread: ['New Thread'],
      computer: ['Computer'],
      typeahead: ['Typeahead menu'],
      askPlaceholder: ['Ask', 'Search'],
      suggestedAnswers: ['Suggested answers'],
      yourAnswer: ['Your answer'],
      sendAnswer: ['Send answer', 'Send'],
      approve: ['Approve', 'Confirm'],
      deny: ['Deny', 'Cancel action'],
      stepsFinished: ['Finished'],
      stepsStopped: ['Stopped'],
      stepsWorking: ['Working'],
      // The live site's step headers (lib/selectors/README.md): "Reviewed 10 sources", "Completed 3 steps", "7 steps completed".
      stepsDone: ['Reviewed', 'Completed'],
      stepsDoneAfter: ['steps completed'],
      // A search answer's header, Sep 2026 ("Researched", "Researched 4s"; capture of 2026-09-26).
      stepsResearched: ['Researched'],
      stopResponse: ['Stop response'],
      // The composer's microphone, "Dictation" / "Stop dictation" (2026-09-26/27 captures).
      dictation: ['dictation'],
      helpful: ['Helpful'],
      sourcesTab: ['Sources', 'Links'],
      removeMode: ['Remove mode'],
      model: ['Model'],
      chooseModel: ['Choose a model'],
    },
    modes: {
      Search: 'standard',
      'Deep research': 'deep-research',
      Research: 'deep-research',
      'Model council': 'model-council',
      'Create files and apps': 'create',
      Create: 'create',
      'Learn step by step': 'learn',
      Learn: 'learn',
      'Review documents': 'review',
      Review: 'review',
      Computer: 'computer',
    },
  },
};

/** The built-in sets' other languages: the page gets them from the worker (see above). */
export const MORE_LABELS: SelectorSet['labels'] = {
  fr: {
    words: {
      submit: ['Envoyer'],
      stop: ['Arrêter'],
      cancel: ['Annuler'],
      newThread: ['Nouveau fil'],
      computer: ['Ordinateur'],
      typeahead: ['Menu de suggestions'],
      askPlaceholder: ['Demander', 'Rechercher'],
      suggestedAnswers: ['Réponses suggérées'],
      yourAnswer: ['Votre réponse'],
      sendAnswer: ['Envoyer la réponse'],
      approve: ['Approuver'],
      deny: ['Refuser'],
      stepsFinished: ['Terminé'],
      stepsStopped: ['Arrêté'],
      stepsWorking: ['En cours'],
      // The simulated French pages of the captured layouts (tests/sim/locales/layout.ts).
      stepsDone: ['Terminé'],
      stepsDoneAfter: ['étapes terminées', 'étape terminée', 'sources consultées', 'source consultée'],
      // The French page of 2026-09-27.
      stepsResearched: ['Recherche terminée'],
      stopResponse: ['Arrêter la réponse'],
      // "Dictée" on the French page of 2026-09-27; "Arrêter la dictée" on the simulated one.
      dictation: ['dictée'],
      helpful: ['Utile'],
      sourcesTab: ['Sources', 'Liens'],
      removeMode: ['Retirer le mode'],
      model: ['Modèle'],
    },
    modes: {
      Recherche: 'standard',
      'Recherche approfondie': 'deep-research',
      'Conseil de modèles': 'model-council',
      'Créer des fichiers et des apps': 'create',
      'Apprendre pas à pas': 'learn',
      'Relire des documents': 'review',
      Ordinateur: 'computer',
    },
  },
  ar: {
    words: {
      submit: ['إرسال'],
      stop: ['إيقاف'],
      cancel: ['إلغاء'],
      newThread: ['محادثة جديدة'],
      computer: ['الحاسوب'],
      typeahead: ['قائمة الاقتراحات'],
      askPlaceholder: ['اسأل', 'ابحث'],
      suggestedAnswers: ['إجابات مقترحة'],
      yourAnswer: ['إجابتك'],
      sendAnswer: ['إرسال الإجابة'],
      approve: ['موافقة'],
      deny: ['رفض'],
      stepsFinished: ['اكتمل'],
      stepsStopped: ['توقف'],
      stepsWorking: ['جارٍ العمل'],
      // The simulated Arabic pages of the captured layouts (tests/sim/locales/layout.ts).
      stepsDone: ['اكتملت', 'تمت مراجعة'],
      // The simulated Arabic page of the Sep–Oct 2026 layout (tests/sim/locales/layout.ts).
      stepsResearched: ['اكتمل البحث'],
      stopResponse: ['إيقاف الرد'],
      dictation: ['الإملاء', 'إملاء'],
      helpful: ['مفيد'],
      sourcesTab: ['المصادر', 'الروابط'],
      removeMode: ['إزالة الوضع'],
      model: ['النموذج'],
    },
    modes: {
      بحث: 'standard',
      'بحث معمّق': 'deep-research',
      'مجلس النماذج': 'model-council',
      'إنشاء ملفات وتطبيقات': 'create',
      'تعلّم خطوة بخطوة': 'learn',
      'مراجعة المستندات': 'review',
      الحاسوب: 'computer',
    },
  },
};
