/* swe.h compiled as C (C99, pedantic): the header is valid C, the index works without a model
 * (searched with and without swe_search_params), and so do the swe_vectors_* on a C caller's rows.
 * Exits 0 on success; prints the failed check otherwise. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "swe.h"

#define CHECK(cond)                                                                  \
    do {                                                                             \
        if (!(cond)) {                                                               \
            fprintf(stderr, "%s:%d: check failed: %s (%s)\n", __FILE__, __LINE__, #cond, swe_last_error()); \
            return 1;                                                                \
        }                                                                            \
    } while (0)

int main(void) {
    CHECK(strlen(swe_version()) >= 5);
    CHECK(strcmp(swe_status_name(SWE_ERR_CORRUPT), "corrupt") == 0);
    CHECK(sizeof(swe_token) == 16);

    swe_model * model = NULL;
    CHECK(swe_model_load_from_file("/nonexistent/model.swe", NULL, &model) == SWE_ERR_IO);
    CHECK(model == NULL && strstr(swe_last_error(), "/nonexistent/model.swe") != NULL);

    swe_encoder * encoder = (swe_encoder *)&model; /* any non-NULL value: the failed call sets it to NULL */
    CHECK(swe_encoder_new(NULL, &encoder) == SWE_ERR_INVALID_ARGUMENT && encoder == NULL);
    swe_encoder_free(encoder);

    swe_index * index = NULL;
    CHECK(swe_index_create(4, SWE_DTYPE_F32, &index) == SWE_OK);
    const uint64_t ids[3] = { 7, 8, 9 };
    const float vectors[12] = { 1, 0, 0, 0,   0, 1, 0, 0,   1, 1, 0, 0 };
    CHECK(swe_index_add(index, ids, vectors, 3) == SWE_OK);
    CHECK(swe_index_get_size(index) == 3);

    const float query[4] = { 0, 2, 0, 0 };
    uint64_t hit_ids[3];
    float hit_scores[3];
    size_t n_hits = 0;
    CHECK(swe_index_search(index, query, 4, 3, NULL, hit_ids, hit_scores, &n_hits) == SWE_OK);
    CHECK(n_hits == 3 && hit_ids[0] == 8 && fabsf(hit_scores[0] - 1.0f) < 1e-6f);
    CHECK(hit_ids[1] == 9 && fabsf(hit_scores[1] - 0.70710678f) < 1e-5f);
    swe_search_params params = swe_search_default_params();
    params.candidates = 3; /* approximate search, here with every entry a candidate: exact */
    CHECK(swe_index_search(index, query, 4, 3, &params, hit_ids, hit_scores, &n_hits) == SWE_OK);
    CHECK(n_hits == 3 && hit_ids[0] == 8 && hit_ids[1] == 9);

    uint8_t * bytes = NULL;
    size_t size = 0;
    CHECK(swe_index_save_to_bytes(index, &bytes, &size) == SWE_OK);
    swe_index * loaded = NULL;
    CHECK(swe_index_load_from_bytes(bytes, size, NULL, &loaded) == SWE_OK);
    CHECK(swe_index_get_size(loaded) == 3 && swe_index_contains(loaded, 9) == 1);
    swe_free_bytes(bytes);
    swe_index_free(loaded);
    swe_index_free(index);

    /* The same three rows ranked, filtered, grouped and clustered. */
    size_t rows[3];
    float scores[3];
    swe_rank_params rank = swe_rank_default_params();
    CHECK(rank.min_score == -INFINITY && rank.order == SWE_RANK_BEST_FIRST);
    CHECK(swe_vectors_rank(query, vectors, 3, 4, 3, NULL, rows, scores, &n_hits) == SWE_OK);
    CHECK(n_hits == 3 && rows[0] == 1 && rows[1] == 2 && rows[2] == 0 && scores[2] == 0.0f);
    rank.min_score = 0.5f;
    rank.order = SWE_RANK_ROW_ORDER;
    CHECK(swe_vectors_rank(query, vectors, 3, 4, 3, &rank, rows, NULL, &n_hits) == SWE_OK);
    CHECK(n_hits == 2 && rows[0] == 1 && rows[1] == 2);
    size_t groups[3], n_groups = 0;
    CHECK(swe_vectors_near_duplicates(vectors, 3, 4, 0.7, groups, NULL, &n_groups) == SWE_OK);
    CHECK(n_groups == 2 && groups[0] == 0 && groups[1] == 1 && groups[2] == 0);
    int32_t labels[3];
    double inertia = -1;
    swe_kmeans_params kmeans = swe_kmeans_default_params();
    kmeans.seed = 7;
    CHECK(swe_vectors_kmeans(vectors, 3, 4, 3, &kmeans, labels, NULL, &inertia, NULL) == SWE_OK);
    CHECK(labels[0] != labels[1] && labels[1] != labels[2] && labels[0] != labels[2] && inertia == 0.0);
    CHECK(swe_vectors_kmeans(vectors, 3, 4, 4, NULL, labels, NULL, NULL, NULL) == SWE_ERR_INVALID_ARGUMENT);
    puts("ok");
    return 0;
}
