/* parallel.c: the leader's side of parallel query and parallel index builds.
 *
 * PostgreSQL runs parallel workers as new processes (forked from the postmaster, not from the
 * leader); each one loads the models it uses. So that a worker uses the very model its leader uses,
 * the leader publishes the checksums of its models in swe.leader_models before the workers start
 * (PostgreSQL copies the leader's settings into each worker), and a worker that finds another file
 * errors out (models.c). Before a parallel plan runs, the leader also loads the models the plan
 * names by a constant: it then holds them even when it embeds no row itself
 * (parallel_leader_participation = off), and a file replaced later is an error in every process.
 * This happens when the plan starts to run (ExecutorRun: the workers start in its first call), so it
 * also covers the statement in which a session loads swe.so. */
#include "postgres.h"

#include "access/xact.h"
#include "executor/executor.h"
#include "nodes/nodeFuncs.h"
#include "tcop/utility.h"
#include "utils/builtins.h"

#include "models.h"
#include "parallel.h"

static ExecutorRun_hook_type prev_executor_run = NULL;
static ProcessUtility_hook_type prev_process_utility = NULL;

/* Collects the model names that swe's functions get as constants in an expression. */
static bool
find_model_names(Node *node, List **names)
{
	if (node == NULL)
		return false;
	if (IsA(node, FuncExpr))
	{
		FuncExpr   *call = (FuncExpr *) node;
		Const	   *first = list_length(call->args) > 0 ? linitial(call->args) : NULL;

		if (first != NULL && IsA(first, Const) && first->consttype == TEXTOID && !first->constisnull &&
			swe_pg_takes_model(call->funcid))
			*names = lappend(*names, DatumGetTextPP(first->constvalue));
	}
	return expression_tree_walker(node, find_model_names, names);
}

/* ... in a plan: every node's target list and filter, and the expressions that scans, joins and
 * other nodes keep in fields of their own. */
static void
find_model_names_in_plan(Plan *plan, List **names)
{
	List	   *children = NIL;
	ListCell   *cell;

#define FIND(expression) find_model_names((Node *) (expression), names)
	if (plan == NULL)
		return;
	FIND(plan->targetlist);
	FIND(plan->qual);
	switch (nodeTag(plan))
	{
		case T_Result:
			FIND(((Result *) plan)->resconstantqual);
			break;
		case T_IndexScan:
			FIND(((IndexScan *) plan)->indexqualorig);
			FIND(((IndexScan *) plan)->indexorderbyorig);
			break;
		case T_IndexOnlyScan:
			FIND(((IndexOnlyScan *) plan)->recheckqual);
			FIND(((IndexOnlyScan *) plan)->indexorderby);
			break;
		case T_BitmapIndexScan:
			FIND(((BitmapIndexScan *) plan)->indexqualorig);
			break;
		case T_BitmapHeapScan:
			FIND(((BitmapHeapScan *) plan)->bitmapqualorig);
			break;
		case T_FunctionScan:
			FIND(((FunctionScan *) plan)->functions);
			break;
		case T_ValuesScan:
			FIND(((ValuesScan *) plan)->values_lists);
			break;
		case T_NestLoop:
			FIND(((Join *) plan)->joinqual);
			break;
		case T_MergeJoin:
			FIND(((Join *) plan)->joinqual);
			FIND(((MergeJoin *) plan)->mergeclauses);
			break;
		case T_HashJoin:
			FIND(((Join *) plan)->joinqual);
			FIND(((HashJoin *) plan)->hashclauses);
			FIND(((HashJoin *) plan)->hashkeys);
			break;
		case T_Hash:
			FIND(((Hash *) plan)->hashkeys);
			break;
		case T_Memoize:
			FIND(((Memoize *) plan)->param_exprs);
			break;
		case T_Limit:
			FIND(((Limit *) plan)->limitOffset);
			FIND(((Limit *) plan)->limitCount);
			break;
		case T_Append:
			children = ((Append *) plan)->appendplans;
			break;
		case T_MergeAppend:
			children = ((MergeAppend *) plan)->mergeplans;
			break;
		case T_BitmapAnd:
			children = ((BitmapAnd *) plan)->bitmapplans;
			break;
		case T_BitmapOr:
			children = ((BitmapOr *) plan)->bitmapplans;
			break;
		case T_SubqueryScan:
			find_model_names_in_plan(((SubqueryScan *) plan)->subplan, names);
			break;
		case T_CustomScan:
			FIND(((CustomScan *) plan)->custom_exprs);
			children = ((CustomScan *) plan)->custom_plans;
			break;
		default:
			break;
	}
#undef FIND
	foreach(cell, children)
		find_model_names_in_plan(lfirst(cell), names);
	find_model_names_in_plan(plan->lefttree, names);
	find_model_names_in_plan(plan->righttree, names);
}

static void
run_with_models(QueryDesc *query, ScanDirection direction, uint64 count, bool execute_once)
{
	if (query->plannedstmt->parallelModeNeeded && !IsInParallelMode())
	{
		List	   *names = NIL;
		ListCell   *cell;

		find_model_names_in_plan(query->plannedstmt->planTree, &names);
		foreach(cell, query->plannedstmt->subplans)
			find_model_names_in_plan(lfirst(cell), &names);
		foreach(cell, names)
			(void) swe_pg_get_model(lfirst(cell));
		swe_pg_publish_models();
	}
	if (prev_executor_run)
		prev_executor_run(query, direction, count, execute_once);
	else
		standard_ExecutorRun(query, direction, count, execute_once);
}

/* Index builds (CREATE INDEX, REINDEX) may compute an expression index's values in parallel workers. */
static void
utility_with_models(PlannedStmt *statement, const char *query_string, bool read_only_tree,
					ProcessUtilityContext context, ParamListInfo params, QueryEnvironment *env,
					DestReceiver *dest, QueryCompletion *completion)
{
	if (IsA(statement->utilityStmt, IndexStmt) || IsA(statement->utilityStmt, ReindexStmt))
		swe_pg_publish_models();
	if (prev_process_utility)
		prev_process_utility(statement, query_string, read_only_tree, context, params, env, dest, completion);
	else
		standard_ProcessUtility(statement, query_string, read_only_tree, context, params, env, dest, completion);
}

void
swe_pg_install_hooks(void)
{
	prev_executor_run = ExecutorRun_hook;
	ExecutorRun_hook = run_with_models;
	prev_process_utility = ProcessUtility_hook;
	ProcessUtility_hook = utility_with_models;
}
