/**
 * The words of the thread layouts modelled on the 2026 captures (types.ts ThreadLayout), per language.
 * Kept apart from the main tables so the layouts can change without touching every other label.
 */
import type { SimLanguage } from './index';

export interface LayoutLabels {
  /** The composer's stop control while an answer streams (Aug–Oct 2026: the label starts "Stop response"). */
  stopResponse: string;
  /** Decoys that are not the stop control. */
  stopDictation: string;
  stopReadAloud: string;
  /** A keyboard hint far from the composer. */
  stopResponseHint: string;
  /** The thread header's tablist. */
  answerModeTabs: string;
  imagesTab: string;
  /** Step headers as the captures read them. */
  completedSteps(n: number): string;
  stepsCompleted(n: number): string;
  reviewedSources(n: number): string;
  notHelpful: string;
  moreActions: string;
  /** Sep–Oct 2026 (`sessions-2026-09`): a search answer's finished header, and the footer's Fork. */
  researched: string;
  fork: string;
  /** Since ~2026-08-20: the label of a Deep Research turn's report card (the 2026-10-04 capture, English). */
  deepResearchReport: string;
  /** Aug–Oct 2026: the composer's "+" menu button and its file item. */
  addFilesOrTools: string;
  uploadFiles: string;
}

const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

export const LAYOUT_LABELS: Record<SimLanguage, LayoutLabels> = {
  en: {
    stopResponse: 'Stop response',
    stopDictation: 'Stop dictation',
    stopReadAloud: 'Stop',
    stopResponseHint: 'Stop response (Esc)',
    answerModeTabs: 'Answer mode tabs',
    imagesTab: 'Images',
    completedSteps: (n) => `Completed ${plural(n, 'step', 'steps')}`,
    stepsCompleted: (n) => `${plural(n, 'step', 'steps')} completed`,
    reviewedSources: (n) => `Reviewed ${plural(n, 'source', 'sources')}`,
    notHelpful: 'Not helpful',
    moreActions: 'More actions',
    researched: 'Researched',
    fork: 'Fork',
    deepResearchReport: 'Deep research report',
    addFilesOrTools: 'Add files or tools',
    uploadFiles: 'Upload files or images',
  },
  fr: {
    stopResponse: 'Arrêter la réponse',
    stopDictation: 'Arrêter la dictée',
    stopReadAloud: 'Arrêter',
    stopResponseHint: 'Arrêter la réponse (Échap)',
    answerModeTabs: 'Onglets du mode réponse',
    imagesTab: 'Images',
    completedSteps: (n) => `${plural(n, 'étape terminée', 'étapes terminées')}`,
    stepsCompleted: (n) => `${plural(n, 'étape terminée', 'étapes terminées')}`,
    reviewedSources: (n) => `${plural(n, 'source consultée', 'sources consultées')}`,
    notHelpful: 'Pas utile',
    moreActions: 'Plus d’actions',
    researched: 'Recherche terminée',
    fork: 'Fork',
    deepResearchReport: 'Rapport de recherche approfondie',
    addFilesOrTools: 'Ajouter des fichiers ou des outils',
    uploadFiles: 'Importer des fichiers ou des images',
  },
  ar: {
    stopResponse: 'إيقاف الرد',
    stopDictation: 'إيقاف الإملاء',
    stopReadAloud: 'إيقاف',
    stopResponseHint: 'إيقاف الرد (Esc)',
    answerModeTabs: 'علامات تبويب وضع الإجابة',
    imagesTab: 'الصور',
    completedSteps: (n) => `اكتملت ${n} خطوات`,
    stepsCompleted: (n) => `اكتملت ${n} خطوات`,
    reviewedSources: (n) => `تمت مراجعة ${n} مصادر`,
    notHelpful: 'غير مفيد',
    moreActions: 'مزيد من الإجراءات',
    researched: 'اكتمل البحث',
    fork: 'تفرع',
    deepResearchReport: 'تقرير البحث المعمّق',
    addFilesOrTools: 'إضافة ملفات أو أدوات',
    uploadFiles: 'رفع ملفات أو صور',
  },
};
